// The chaos run's worker processes: started, watched until their loops run, SIGKILLed and replaced.
//
// A kill comes 1–3 s after the previous one, picks among the workers whose loops run (tests/chaos/harness.ts
// prefers one holding a lease), and waits until enough run that `keepRunning` of them keep working: 1 in the short
// profile, 2 in the full one (with one, a 1,000-task backlog had 4 execution slots: 116 steps committed in its
// first 169 s, 960 with two).
// Killed at a fixed pace regardless, most workers died while still booting on this 2-core machine: a
// boot (Node, tsx, the module graph: ~2 s of CPU) took 6–8 s when the machine was saturated, longer than
// the ~6 s a worker lived on average with one of three killed every 1–3 s, and the boots themselves took
// about half the machine. A 200-task run: 155 of 207 workers never logged "started"; the fleet held 2.9
// of its 12 execution slots on average and took 448 s. A booting worker holds no lease, so killing it
// tests nothing the audit judges; it only starves the run.
//
// A worker that exits on its own (its start failed during a PostgreSQL outage) is started again
// after a short pause, as `npm start`'s supervisor would; without that the fleet shrank for good.

import { percentile } from "@/tests/chaos/recovery";
import { startWorkerProcess, stopWorkers, type WorkerProc } from "@/tests/helpers";

const STARTED = "started (loops:";

const RESPAWN_MS = 500;

interface Member {
  proc: WorkerProc;
  killed: boolean;
  spawnedAt: number;
  /** When its loops were running (its "started" line was seen). */
  readyAt: number | null;
}

export interface BootStats {
  boots: number;
  /** Workers that exited without being killed (and were started again). */
  selfExits: number;
  p50Ms: number | null;
  maxMs: number | null;
}

export class Fleet {
  private members: Member[] = [];
  private bootMs: number[] = [];
  private selfExits = 0;
  private stopping = false;

  constructor(
    size: number,
    private env: Record<string, string>,
    private onSelfExit: (w: WorkerProc) => void = () => {},
  ) {
    for (let i = 0; i < size; i++) this.members.push(this.spawn());
  }

  private spawn(): Member {
    const m: Member = { proc: startWorkerProcess(this.env), killed: false, spawnedAt: Date.now(), readyAt: null };
    void m.proc.exited.then(async () => {
      if (m.killed || this.stopping) return;
      this.selfExits++;
      this.onSelfExit(m.proc);
      await new Promise((r) => setTimeout(r, RESPAWN_MS));
      const i = this.members.indexOf(m);
      if (i >= 0 && !this.stopping) this.members[i] = this.spawn();
    });
    let seen = "";
    const onData = (d: Buffer) => {
      seen = (seen + d).slice(-2000);
      if (!seen.includes(STARTED)) return;
      m.readyAt = Date.now();
      this.bootMs.push(m.readyAt - m.spawnedAt);
      m.proc.child.stdout!.off("data", onData);
    };
    m.proc.child.stdout!.on("data", onData);
    return m;
  }

  /** Indexes of the workers whose loops run. */
  ready(): number[] {
    return this.members.flatMap((m, i) =>
      m.readyAt !== null && m.proc.child.exitCode === null && m.proc.child.signalCode === null ? [i] : [],
    );
  }

  pid(i: number): number {
    return this.members[i].proc.child.pid!;
  }

  whole(): boolean {
    return this.ready().length === this.members.length;
  }

  /** SIGKILLs worker `i`, waits for its exit, starts its replacement; returns the dead one. */
  async kill(i: number): Promise<{ proc: WorkerProc; killAt: number }> {
    const dead = this.members[i];
    dead.killed = true;
    const killAt = Date.now();
    dead.proc.child.kill("SIGKILL");
    await dead.proc.exited;
    this.members[i] = this.spawn();
    return { proc: dead.proc, killAt };
  }

  all(): WorkerProc[] {
    return this.members.map((m) => m.proc);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await stopWorkers(...this.all());
  }

  boots(): BootStats {
    const sorted = [...this.bootMs].sort((a, b) => a - b);
    return {
      boots: sorted.length,
      selfExits: this.selfExits,
      p50Ms: percentile(sorted, 0.5),
      maxMs: percentile(sorted, 1),
    };
  }
}
