"use client";

import { useSyncExternalStore } from "react";
import { patchSettings } from "@/lib/client/api";
import { canonicalTimeZone, DEFAULT_TIME_ZONE } from "@/lib/contract/clock";

// The zone every time on the page is read in: the signed-in account's (the
// server writes replies, notices and emails in it, so a chip must agree with
// them), else this browser's. Set from the page's first render and by Settings.

let accountZone: string | null = null;
let seeded = false;
const listeners = new Set<() => void>();

/** This device's IANA zone, or undefined where the browser will not say. */
export function browserTimeZone(): string | undefined {
  try {
    return canonicalTimeZone(Intl.DateTimeFormat().resolvedOptions().timeZone) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The account's zone from the server render; once per page load (server renders share this module). */
export function seedAccountTimeZone(zone: string | null): void {
  if (seeded || typeof window === "undefined") return;
  seeded = true;
  accountZone = canonicalTimeZone(zone);
}

/**
 * An account that has no zone yet (made without a browser: the API, a script)
 * takes the first signed-in browser's, before anything is written in UTC.
 */
export function adoptBrowserTimeZone(): void {
  const zone = browserTimeZone();
  if (!zone || accountZone !== null) return;
  setAccountTimeZone(zone);
  void patchSettings({ timeZone: zone }).catch(() => {});
}

/** A zone saved in Settings: every time on the page follows at once. */
export function setAccountTimeZone(zone: string): void {
  accountZone = canonicalTimeZone(zone);
  for (const l of listeners) l();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function current(): string {
  return accountZone ?? browserTimeZone() ?? DEFAULT_TIME_ZONE;
}

/** The reader's zone; UTC in the server render, where no time text is drawn (LocalTime waits for hydration). */
export function useTimeZone(): string {
  return useSyncExternalStore(subscribe, current, () => DEFAULT_TIME_ZONE);
}
