import { spawn } from "node:child_process";
import { pickFreePort } from "@/lib/util/free-port";
import { ROOT, waitFor } from "@/tests/helpers";

/** One line of tests/smtp-sink.ts's stdout: the listening port, then one per delivery attempt. */
export interface SinkLine {
  at: number;
  to?: string;
  accepted?: boolean;
  code?: number;
  messageId?: string;
  headers?: Record<string, string>;
  text?: string;
  listening?: number;
}

export interface SmtpSink {
  url: string;
  /** Every line so far, appended as the sink prints them. */
  lines: SinkLine[];
  stop(): void;
}

/** Starts the SMTP sink as its own process on a free port and waits until it listens. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const port = await pickFreePort();
  const child = spawn(process.execPath, ["--import", "tsx", "tests/smtp-sink.ts", String(port)], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines: SinkLine[] = [];
  let buf = "";
  child.stdout!.on("data", (d: Buffer) => {
    buf += d.toString("utf8");
    let i: number;
    while ((i = buf.indexOf("\n")) >= 0) {
      lines.push(JSON.parse(buf.slice(0, i)) as SinkLine);
      buf = buf.slice(i + 1);
    }
  });
  await waitFor(async () => lines.some((l) => l.listening === port), 20_000, "SMTP sink listening");
  return { url: `smtp://127.0.0.1:${port}`, lines, stop: () => child.kill("SIGTERM") };
}
