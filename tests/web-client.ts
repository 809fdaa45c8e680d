// Driving a web process (tests/web-process.ts) over real HTTP from a test: start it, read its feed, post to it.
import { spawn, type ChildProcess } from "node:child_process";
import { testProcessArgs } from "./process-bundles";
import { takeSseFrames } from "./sse";
import { ROOT, type TestUser } from "./helpers";

export interface Web {
  url: string;
  proc: ChildProcess;
  /** What the process printed so far (stdout and stderr). */
  output: () => string;
}

/** A web process of its own (own pools, LISTEN connection and feed fan-out), ready once it prints its address. */
export async function startWeb(env: Record<string, string> = {}): Promise<Web> {
  const proc = spawn(process.execPath, testProcessArgs("web"), {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  proc.stderr!.on("data", (d) => (out += d));
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout!.on("data", (d: Buffer) => {
      out += d;
      const m = /listening (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    proc.once("exit", (code) => reject(new Error(`web process exited (${code}): ${out}`)));
  });
  return { url, proc, output: () => out };
}

/** Every event a feed delivers, collected in the background. */
export function collectFeed(web: Web, user: TestUser) {
  const events: { id: number; type: string; data: unknown }[] = [];
  const abort = new AbortController();
  const done = (async () => {
    const res = await fetch(`${web.url}/api/events?after=0`, {
      headers: { cookie: user.cookie },
      signal: abort.signal,
    });
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      const { frames, rest } = takeSseFrames(buf + dec.decode(value, { stream: true }));
      buf = rest;
      for (const f of frames)
        if (f.id && f.event) events.push({ id: Number(f.id), type: f.event, data: JSON.parse(f.data ?? "null") });
    }
  })().catch(() => {});
  return { events, stop: async () => (abort.abort(), await done) };
}

export async function post(web: Web, user: TestUser, path: string, body: unknown) {
  const r = await fetch(`${web.url}${path}`, {
    method: "POST",
    headers: { cookie: user.cookie, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: (await r.json().catch(() => null)) as Record<string, unknown> };
}
