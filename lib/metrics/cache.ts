/**
 * Wraps an async producer so that concurrent callers share one in-flight call
 * (single flight) and a success is reused for `ttlMs` after it settles. A failure
 * is not kept: the next caller tries again.
 *
 * Per process on purpose: this only spares the database repeated aggregate
 * reads; no other process needs to see it, and a stale answer of a few seconds
 * is what a scraper or a load balancer expects anyway.
 */
export function singleFlight<T>(
  produce: () => Promise<T>,
  ttlMs: number,
  clock: () => number = () => Date.now(),
): () => Promise<T> {
  let inflight: Promise<T> | null = null;
  let fresh: { value: T; until: number } | null = null;
  return () => {
    if (fresh && clock() < fresh.until) return Promise.resolve(fresh.value);
    inflight ??= Promise.resolve()
      .then(produce)
      .then((value) => {
        // The window starts when the answer exists, so a slow query cannot leave
        // callers arriving just after it without a cached answer.
        fresh = { value, until: clock() + ttlMs };
        return value;
      })
      .finally(() => {
        inflight = null;
      });
    return inflight;
  };
}
