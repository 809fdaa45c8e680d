import { log } from "@/lib/util/log";

/**
 * The skeleton every lease loop shares: claim → work → commit or release.
 * A loop claims up to its free capacity, runs each row independently (one bad
 * row never stalls the others), and sleeps until woken by NOTIFY, a freed slot,
 * or the fallback poll, whichever comes first.
 */
export interface LoopSpec<Row> {
  name: string;
  concurrency: number;
  pollMs: number;
  claim(limit: number): Promise<Row[]>;
  work(row: Row, stopping: AbortSignal): Promise<unknown>;
  /** Optional: how long until this loop surely has work (due timers); capped by pollMs. */
  nextWakeMs?(): Promise<number | null>;
  log?(msg: string, err?: unknown): void;
}

export class Loop<Row> {
  private inFlight = new Set<Promise<unknown>>();
  private wakeResolve: (() => void) | null = null;
  private woken = false;
  /** Claims failed in a row. Any wake-up (NOTIFY, the LISTEN connection restored, a freed slot) resets it: after an outage the next waits must not stay at 16 polls. */
  private failures = 0;
  private done: Promise<void> | null = null;

  constructor(
    private readonly spec: LoopSpec<Row>,
    private readonly stopping: AbortSignal,
  ) {}

  get name(): string {
    return this.spec.name;
  }

  get busy(): number {
    return this.inFlight.size;
  }

  wake(): void {
    this.woken = true;
    this.failures = 0;
    this.wakeResolve?.();
  }

  start(): Promise<void> {
    this.done ??= this.run();
    return this.done;
  }

  private log(msg: string, err?: unknown) {
    (this.spec.log ?? ((m, e) => log("loop").error({ err: e, loop: this.spec.name }, m)))(msg, err);
  }

  private async run(): Promise<void> {
    let unclaimableDue = 0;
    while (!this.stopping.aborted) {
      this.woken = false;
      const free = this.spec.concurrency - this.inFlight.size;
      let claimed = 0;
      if (free > 0) {
        try {
          const rows = await this.spec.claim(free);
          this.failures = 0;
          claimed = rows.length;
          for (const row of rows) {
            const p: Promise<unknown> = this.spec
              .work(row, this.stopping)
              .catch((err) => this.log("work failed", err))
              .finally(() => {
                this.inFlight.delete(p);
                this.wake();
              });
            this.inFlight.add(p);
          }
        } catch (err) {
          this.failures += 1;
          this.log("claim failed", err);
        }
      }
      // A full batch likely means more is waiting: claim again without sleeping.
      if (claimed > 0 && claimed === free) continue;
      let waitMs = this.spec.pollMs * (this.failures > 0 ? Math.min(2 ** this.failures, 16) : 1);
      // Only a loop with a free slot and nothing claimed asks when work is next due: one
      // that has work in hand is woken by its end (a statement per claim, and one per
      // NOTIFY while every slot was busy, were a thirtieth of a task's whole cost).
      if (this.spec.nextWakeMs && free > 0 && claimed === 0) {
        const next = await this.spec.nextWakeMs().catch(() => null);
        if (next !== null) waitMs = Math.max(0, Math.min(waitMs, next));
        // "Due now" yet nothing claimed: either it became due just after the claim
        // (claim again at once), or it is not ours to take (its account is at its
        // fair share, another worker holds it) — then back off instead of spinning;
        // a freed slot wakes us anyway.
        if (next !== null && next <= 0 && claimed === 0) {
          waitMs = Math.min(this.spec.pollMs, unclaimableDue === 0 ? 0 : 25 * 2 ** unclaimableDue);
          unclaimableDue += 1;
        } else unclaimableDue = 0;
      }
      if (!this.woken) await this.sleep(waitMs);
    }
    await Promise.allSettled([...this.inFlight]);
  }

  private sleep(ms: number): Promise<void> {
    // A stop that arrived while claiming has already fired its abort event.
    if (this.stopping.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(t);
        this.wakeResolve = null;
        this.stopping.removeEventListener("abort", finish);
        resolve();
      };
      const t = setTimeout(finish, ms);
      this.wakeResolve = finish;
      this.stopping.addEventListener("abort", finish, { once: true });
    });
  }
}
