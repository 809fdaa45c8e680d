// Short-lived messages (e.g. a cancel that failed) that outlive the control
// that caused them. Stored as dictionary keys so they follow a language switch.

import { useSyncExternalStore } from "react";
import type { MessageKey } from "@/lib/i18n/dictionaries";

export interface Toast {
  id: number;
  tone: "error" | "info";
  key: MessageKey;
  vars?: Record<string, string | number>;
  /** Translated into the `reason` variable at render time. */
  reasonKey?: MessageKey;
}

type Snapshot = readonly Toast[];

const EMPTY: Snapshot = Object.freeze([]) as Snapshot;
const TOAST_MS = 8000;
const MAX_TOASTS = 3;

let snapshot: Snapshot = EMPTY;
let nextId = 1;
const listeners = new Set<() => void>();

function emit(next: Snapshot): void {
  snapshot = next;
  for (const listener of listeners) listener();
}

export function dismissToast(id: number): void {
  if (snapshot.some((t) => t.id === id)) emit(snapshot.filter((t) => t.id !== id));
}

export function pushToast(toast: Omit<Toast, "id">): number {
  const id = nextId++;
  emit([...snapshot, { ...toast, id }].slice(-MAX_TOASTS));
  setTimeout(() => dismissToast(id), TOAST_MS);
  return id;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useToasts(): Snapshot {
  return useSyncExternalStore(
    subscribe,
    () => snapshot,
    () => EMPTY,
  );
}

// Where toasts render. A modal (the tasks sheet) hides everything outside it
// from assistive technology, so while one is open its own host takes over.
let hosts: readonly symbol[] = [];
const hostListeners = new Set<() => void>();

export function registerToastHost(host: symbol): () => void {
  hosts = [...hosts, host];
  for (const l of hostListeners) l();
  return () => {
    hosts = hosts.filter((h) => h !== host);
    for (const l of hostListeners) l();
  };
}

function subscribeHosts(listener: () => void): () => void {
  hostListeners.add(listener);
  return () => hostListeners.delete(listener);
}

export function useTopToastHost(): symbol | undefined {
  return useSyncExternalStore(
    subscribeHosts,
    () => hosts[hosts.length - 1],
    () => undefined,
  );
}
