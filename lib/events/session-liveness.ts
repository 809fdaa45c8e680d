// Whether sessions still exist, for things that outlive the request that
// authenticated them (the SSE feed); lib/auth announces ended sessions
// through notifySessionEnded. Free of better-auth so the feed does not load it.

import { notifyEndedSession, selectLiveSessionIds } from "./sql";

/** The ids among `ids` whose session row exists and has not expired (one primary-key lookup). */
export async function liveSessionIds(ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await selectLiveSessionIds(ids);
  return new Set(rows.map((r) => r.id));
}

/** Feeds of that account re-check at once instead of waiting for their next heartbeat. */
export async function notifySessionEnded(userId: string): Promise<void> {
  await notifyEndedSession(userId);
}
