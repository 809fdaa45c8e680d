import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";

export type QueueSystem = "herald" | "herald-loop" | "graphile-worker" | "pg-boss";

interface Report {
  queries: number;
  starts: [string, number][];
}

/** Wall clock with sub-millisecond resolution, comparable between processes on one machine. */
export const wallNow = () => performance.timeOrigin + performance.now();

/** Bench figures are of Herald's own work: the built-in offline model, never a remote one. */
function offline(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  delete env.OPENAI_BASE_URL;
  return env;
}

/** A bench worker process (bench/worker.ts) driven over IPC. */
export class BenchWorker {
  private readonly child: ChildProcess;
  private waiters = new Map<string, (m: Record<string, unknown>) => void>();
  private readonly exited: Promise<number | null>;
  private output = "";

  private constructor(system: QueueSystem, concurrency: number, batch: number, env: Record<string, string>) {
    this.child = fork(path.join(import.meta.dirname, "worker.ts"), [system, String(concurrency), String(batch)], {
      execArgv: [
        "--import",
        "tsx",
        ...(process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
      ],
      cwd: path.resolve(import.meta.dirname, ".."),
      env: offline({ ...process.env, ...env }),
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    this.child.stdout!.on("data", (d) => (this.output += d));
    this.child.stderr!.on("data", (d) => {
      this.output += d;
      if (process.env.BENCH_TRACE) process.stderr.write(d);
    });
    this.child.on("message", (m: Record<string, unknown>) => {
      const w = this.waiters.get(m.type as string);
      this.waiters.delete(m.type as string);
      w?.(m);
    });
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
  }

  private expect(type: string, timeoutMs = 60_000): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const t = setTimeout(
        () => reject(new Error(`bench worker: no "${type}" in ${timeoutMs} ms\n${this.output.slice(-2000)}`)),
        timeoutMs,
      );
      this.exited.then((code) =>
        reject(new Error(`bench worker exited (${code}) waiting for "${type}"\n${this.output.slice(-2000)}`)),
      );
      this.waiters.set(type, (m) => {
        clearTimeout(t);
        resolve(m);
      });
    });
  }

  /** Spawned and its modules loaded; it consumes nothing until go(). */
  static async start(
    system: QueueSystem,
    concurrency: number,
    opts: { batch?: number; env?: Record<string, string> } = {},
  ) {
    const w = new BenchWorker(system, concurrency, opts.batch ?? 1, opts.env ?? {});
    await w.expect("ready");
    return w;
  }

  async go(): Promise<void> {
    const p = this.expect("going");
    this.child.send("go");
    await p;
  }

  /** Statements sent so far, and the jobs started since the last report. */
  async report(): Promise<Report> {
    const p = this.expect("report");
    this.child.send("report");
    return (await p) as unknown as Report;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const p = this.expect("stopped", 30_000).catch(() => this.child.kill("SIGKILL"));
    this.child.send("stop");
    await p;
    await this.exited;
  }
}
