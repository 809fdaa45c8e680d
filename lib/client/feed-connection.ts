// The feed's connection as people see it (docs/api.md#event-feed): whether what the page shows is live. The feed
// (./feed.ts) reports what its EventSource does; the connection banner and the status badges read it.

import { useSyncExternalStore } from "react";

/**
 * - `connecting`: the first connection of this tab is being made (nothing to warn about yet);
 * - `live`: the feed is open, the page is up to date;
 * - `reconnecting`: the feed dropped (server gone, network lost, a sleep); shown data may be stale;
 * - `restored`: it came back after `reconnecting`; shown briefly, then `live`.
 */
export type FeedConnection = "connecting" | "live" | "reconnecting" | "restored";

/** How long "Connected again" stays before the banner goes away. */
export const RESTORED_MS = 4000;
/** A drop shorter than this (a server restart, a hiccup) is not worth a banner or greyed badges. */
export const GRACE_MS = 1200;

let current: FeedConnection = "connecting";
let restoredTimer: ReturnType<typeof setTimeout> | null = null;
let lostTimer: ReturnType<typeof setTimeout> | null = null;
const listeners = new Set<() => void>();

function clearTimers(): void {
  if (restoredTimer !== null) clearTimeout(restoredTimer);
  if (lostTimer !== null) clearTimeout(lostTimer);
  restoredTimer = lostTimer = null;
}

function set(next: FeedConnection): void {
  if (next === current) return;
  current = next;
  for (const l of listeners) l();
}

/** The feed opened. Returns true when it had dropped since it was last open (the caller refetches). */
export function feedOpened(): boolean {
  const dropped = current === "reconnecting" || lostTimer !== null;
  const shown = current === "reconnecting";
  clearTimers();
  if (!shown) {
    set("live");
    return dropped;
  }
  set("restored");
  restoredTimer = setTimeout(() => {
    restoredTimer = null;
    set("live");
  }, RESTORED_MS);
  return true;
}

/** The feed dropped or failed to open; said once it has stayed down for GRACE_MS. */
export function feedLost(): void {
  if (current === "reconnecting" || lostTimer !== null) return;
  if (restoredTimer !== null) clearTimeout(restoredTimer);
  restoredTimer = null;
  lostTimer = setTimeout(() => {
    lostTimer = null;
    set("reconnecting");
  }, GRACE_MS);
}

/** The feed was closed on purpose (sign-out, last user gone): nothing to warn about. */
export function feedStopped(): void {
  clearTimers();
  set("connecting");
}

export function feedConnection(): FeedConnection {
  return current;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useFeedConnection(): FeedConnection {
  return useSyncExternalStore(subscribe, feedConnection, () => "connecting");
}

/** False while the feed is down: an "active" status shown now may already be over. */
export function useFeedLive(): boolean {
  return useFeedConnection() !== "reconnecting";
}
