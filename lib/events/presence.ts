import { env } from "@/lib/config/env";
import { touchPresenceAt } from "./sql";
import { log } from "@/lib/util/log";

/**
 * When a tab of the account was last open, for the email outbox's "is the user
 * away?" (lib/email/state.ts). An open feed is an open tab: this process
 * touches user.presenceAt when a feed opens, when it closes, and every
 * away/3 seconds for the accounts with a feed open here — one UPDATE per
 * interval for all of them, never one per event.
 */
export function presenceIntervalMs(): number {
  return Math.max(1_000, Math.floor((env("HERALD_EMAIL_AWAY_SECONDS") * 1000) / 3));
}

/**
 * The periodic batch skips rows locked right now: the user row is also the
 * per-account event counter (emitEvent locks it), and one busy account must
 * not hold up the touch of every other account, nor the other way round. A
 * skipped row is touched at the next interval, well inside away.
 */
export async function touchPresence(ownerIds: readonly string[], opts: { skipLocked?: boolean } = {}): Promise<void> {
  if (ownerIds.length === 0) return;
  await touchPresenceAt([...ownerIds], opts.skipLocked === true);
}

/** Fire and forget: presence is a hint for email, never worth failing a feed over. */
export function touchPresenceSoon(ownerIds: readonly string[], opts: { skipLocked?: boolean } = {}): void {
  touchPresence(ownerIds, opts).catch((err) => log("feed").warn({ err }, "presence touch failed"));
}
