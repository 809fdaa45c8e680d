// Short-lived messages (e.g. a cancel that failed) that outlive the control
// that caused them. Stored as dictionary keys so they follow a language switch.

import type { MessageKey } from "@/lib/i18n/dictionaries";
import { createStore } from "./store";

export interface Toast {
  id: number;
  tone: "error" | "info";
  key: MessageKey;
  vars?: Record<string, string | number>;
  /** Translated into the `reason` variable at render time. */
  reasonKey?: MessageKey;
  /** A link after the text (e.g. to the chat a finished task belongs to). */
  link?: { href: string; key: MessageKey };
}

type Snapshot = readonly Toast[];

const TOAST_MS = 8000;
const MAX_TOASTS = 3;

const toasts = createStore<Snapshot>(Object.freeze([]) as Snapshot);
let nextId = 1;

export function dismissToast(id: number): void {
  toasts.update((snapshot) => (snapshot.some((t) => t.id === id) ? snapshot.filter((t) => t.id !== id) : snapshot));
}

export function pushToast(toast: Omit<Toast, "id">): number {
  const id = nextId++;
  toasts.update((snapshot) => [...snapshot, { ...toast, id }].slice(-MAX_TOASTS));
  setTimeout(() => dismissToast(id), TOAST_MS);
  return id;
}

/** The toasts on screen, oldest first. */
export function getToasts(): Snapshot {
  return toasts.get();
}

export function useToasts(): Snapshot {
  return toasts.useStore();
}

// Where toasts render. A modal (the tasks sheet) hides everything outside it
// from assistive technology, so while one is open its own host takes over.
const hosts = createStore<readonly symbol[]>([]);

export function registerToastHost(host: symbol): () => void {
  hosts.update((list) => [...list, host]);
  return () => hosts.update((list) => list.filter((h) => h !== host));
}

function topHost(list: readonly symbol[]): symbol | undefined {
  return list[list.length - 1];
}

export function useTopToastHost(): symbol | undefined {
  return hosts.useStore(topHost);
}
