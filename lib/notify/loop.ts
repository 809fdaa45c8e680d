import { env } from "@/lib/config/env";
import type { LoopSpec } from "@/lib/fleet/loop";
import { claimNotifications, notifyOne, type ClaimedNotification } from "./deliver";
import { log } from "@/lib/util/log";

/**
 * The notification outbox loop. Work per row is a few short transactions (the
 * narration itself runs in the run loop), so a small concurrency suffices.
 */
export function notifyLoop(workerId: string): LoopSpec<ClaimedNotification> {
  return {
    name: "notify",
    concurrency: env("HERALD_NOTIFY_CONCURRENCY"),
    pollMs: env("HERALD_POLL_MS"),
    claim: (limit) => claimNotifications(workerId, limit),
    work: (row, stopping) => notifyOne(row, stopping),
    log,
  };
}
