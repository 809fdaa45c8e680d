// Restart policy for `npm start`'s long-running children (docs/operations.md#supervision).
// A child that exits unexpectedly is started again after a backoff that doubles
// with each recent crash; one that crashes `limit` times within `windowMs` is
// given up, with a message naming it and its log. Pure bookkeeping plus timers:
// start.ts owns the processes and decides what giving up means for each child.

export interface RestartPolicy {
  /** Crashes within `windowMs` after which the child is given up. */
  limit: number;
  windowMs: number;
  /** First delay; doubles per recent crash up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_POLICY: RestartPolicy = { limit: 5, windowMs: 60_000, baseDelayMs: 500, maxDelayMs: 15_000 };

export type CrashDecision = { restart: true; delayMs: number; recent: number } | { restart: false; recent: number };

/** Remembers one child's recent crashes and decides what the next one means. */
export class CrashHistory {
  private crashes: number[] = [];

  constructor(private readonly policy: RestartPolicy = DEFAULT_POLICY) {}

  record(now: number): CrashDecision {
    this.crashes = this.crashes.filter((t) => t > now - this.policy.windowMs);
    this.crashes.push(now);
    const recent = this.crashes.length;
    if (recent >= this.policy.limit) return { restart: false, recent };
    return {
      restart: true,
      recent,
      delayMs: Math.min(this.policy.baseDelayMs * 2 ** (recent - 1), this.policy.maxDelayMs),
    };
  }
}

/** How a child ended, in words for the log line. */
export function exitWords(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `killed by ${signal}` : `exit code ${code}`;
}
