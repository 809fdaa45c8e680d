import { log } from "@/lib/util/log";
import { sleep } from "@/lib/util/sleep";
import { transientTransactionCode } from "./errors";

/**
 * The one retry policy of every transaction (`transaction` in lib/db/kysely.ts, hence `transactionWithEvents` in
 * lib/events/emit.ts): when Postgres aborts a transaction as a deadlock (40P01) or a
 * serialization failure (40001), it has rolled everything back and the other side goes on, so the whole transaction
 * runs again, a few times at most, after a short wait with jitter. Nothing else is retried: a refusal, a unique
 * violation or a timeout would meet the same answer again.
 *
 * A body may therefore run more than once. What it does before the commit must be undone by the rollback: database
 * writes only, or in-memory state created inside the body (the event batch of `transactionWithEvents`); no counters,
 * sends or other effects that would happen twice (those go after the transaction returns).
 */

/** Runs of one transaction at most, the first included. */
export const TRANSACTION_ATTEMPTS = 5;
/** The first wait; each retry doubles it up to the ceiling. Long enough for the winner of a deadlock to commit. */
const STEP_MS = 20;
const CAP_MS = 1_000;

const REASONS: Record<string, string> = {
  "40P01": "deadlock",
  "40001": "serialization_failure",
};

/** The wait before retry `n` (1-based): exponential, half of it fixed and half random so the two sides spread out. */
export function transactionBackoffMs(n: number, random: () => number = Math.random): number {
  const step = Math.min(CAP_MS, STEP_MS * 2 ** Math.min(n - 1, 16));
  return Math.round(step / 2 + random() * (step / 2));
}

export interface TransactionRetryOptions {
  attempts?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** Runs `attempt` (one whole transaction, begin to commit) until it succeeds, fails for good, or the bound is reached. */
export async function withTransactionRetry<T>(
  attempt: (n: number) => Promise<T>,
  opts: TransactionRetryOptions = {},
): Promise<T> {
  const attempts = opts.attempts ?? TRANSACTION_ATTEMPTS;
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      const code = transientTransactionCode(err);
      if (code === null || n >= attempts) throw err;
      const delayMs = transactionBackoffMs(n, opts.random);
      log("db").warn(
        { err, reason: REASONS[code] ?? "transient", attempt: n, attempts, delayMs },
        "transaction aborted by Postgres, running it again",
      );
      await (opts.sleep ?? sleep)(delayMs);
    }
  }
}
