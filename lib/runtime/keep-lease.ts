/**
 * Keeps a lease alive while its work runs: renews it every third of the lease and
 * calls `onLost` once the lease is known gone.
 *
 * Only the database can say a lease is gone (`renew` matched no row: another worker
 * claimed it, a cancel fenced it, it expired). A renewal that could not reach the
 * database says nothing: during a PostgreSQL restart of half a second, treating that
 * as lost aborted every step in flight on every worker, and each was re-claimed and
 * paid its model request again after its lease ran out. So a failed renewal only
 * gives up once the lease has run out by this process's clock, counted from the last
 * renewal the database confirmed (or from the claim) — a local decision to stop
 * working, never a write: the guard of every write after work stays the judge.
 *
 * One renewal at a time: on a saturated machine a renewal waiting for a pooled
 * connection must not be joined by more every tick.
 */
export function keepLease(leaseMs: number, renew: () => Promise<boolean>, onLost: () => void): () => void {
  let confirmedAt = Date.now();
  let renewing = false;
  let lost = false;
  const giveUp = () => {
    if (lost) return;
    lost = true;
    onLost();
  };
  const timer = setInterval(async () => {
    if (renewing || lost) return;
    renewing = true;
    const sentAt = Date.now();
    try {
      if (await renew()) confirmedAt = sentAt;
      else giveUp();
    } catch {
      if (Date.now() - confirmedAt > leaseMs) giveUp();
    } finally {
      renewing = false;
    }
  }, leaseMs / 3);
  return () => {
    lost = true;
    clearInterval(timer);
  };
}
