import { env } from "@/lib/config/env";
import { registeredDrivers } from "@/lib/drivers/registry";
import { publicError } from "@/lib/errors/public";
import { markOrphanCancelled, noteOrphanAttempt, sightOrphans, trackedRefs } from "./orphans-sql";
import { log } from "@/lib/util/log";

/**
 * The orphan reaper: for every remote driver that can list its remote's
 * tasks (MCP `tasks/list`), active remote tasks that no task row tracks and
 * that stayed untracked for `HERALD_ORPHAN_GRACE_MS` are cancelled and
 * counted. They come from a worker that died between the remote create and
 * the stored handle on a protocol without an idempotency key: the next claim
 * created the task again, so this one has nobody waiting for it. (The Agent
 * Protocol driver adopts instead, through thread metadata, and has nothing to reap.)
 *
 * Every worker runs it; the database decides who counts each orphan.
 */
export async function reapOrphansOnce(
  signal: AbortSignal,
  graceMs = env("HERALD_ORPHAN_GRACE_MS"),
): Promise<{ seen: number; cancelled: number }> {
  let seen = 0;
  let cancelled = 0;
  for (const [name, driver] of registeredDrivers()) {
    if (!driver.listRemote || !driver.cancelUntracked) continue;
    try {
      const listed = await driver.listRemote(signal);
      if (!listed) continue;
      const active = listed.filter((r) => r.active).map((r) => r.remoteRef);
      const tracked = await trackedRefs(name, active);
      const untracked = active.filter((r) => !tracked.has(r));
      seen += untracked.length;
      for (const ref of await sightOrphans(name, untracked, graceMs)) {
        // A hand-off may have committed since the list was read.
        if ((await trackedRefs(name, [ref])).size > 0) continue;
        try {
          await driver.cancelUntracked(ref, signal);
          if (await markOrphanCancelled(name, ref)) {
            cancelled++;
            log("orphans").info(`cancelled an untracked remote task of ${name}`);
          }
        } catch (err) {
          await noteOrphanAttempt(name, ref);
          publicError(err, `orphans ${name}`);
        }
      }
    } catch (err) {
      if (signal.aborted) throw err;
      publicError(err, `orphans ${name}`);
    }
  }
  return { seen, cancelled };
}
