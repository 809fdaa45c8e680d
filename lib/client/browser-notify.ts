// System notifications for notices while no tab of Herald is visible (Settings:
// "Notify me in this browser"). Every tab receives every notice through its own
// feed, so the tabs agree on one of them showing it:
//   - a visible tab holds the shared Web Lock VISIBLE_LOCK; a hidden tab that
//     sees it held stays quiet (the user is looking at Herald);
//   - otherwise the tabs race for an exclusive per-notice lock with
//     `ifAvailable`, and the winner checks and sets a localStorage marker per
//     notice id, so a tab whose copy of the event arrives later stays quiet too.
// Without Web Locks (older browsers) the marker alone decides, and the
// notification's `tag` lets the system replace rather than stack a duplicate.

import { createStore } from "./store";

const ENABLED_KEY = "herald.notify";
const SHOWN_KEY = "herald.notified";
const SHOWN_KEEP = 200;
const VISIBLE_LOCK = "herald-visible";

export type NotifyState = "unsupported" | "blocked" | "on" | "off";

export interface NoticeToShow {
  noticeId: string;
  conversationId: string;
  title: string;
  text: string;
}

const supported = () => typeof window !== "undefined" && "Notification" in window;

function readEnabled(): boolean {
  try {
    return window.localStorage.getItem(ENABLED_KEY) === "on";
  } catch {
    return false;
  }
}

function computeState(): NotifyState {
  if (!supported()) return "unsupported";
  if (Notification.permission === "denied") return "blocked";
  return Notification.permission === "granted" && readEnabled() ? "on" : "off";
}

/** Read in components through useStore; "unsupported" until the browser has been asked. */
export const notifyStore = createStore<NotifyState>("unsupported");

let watching = false;

/** Keeps the store in step with other tabs (storage) and with permission changes made in the browser's UI. */
export function watchNotifyState(): void {
  notifyStore.set(computeState());
  if (watching || typeof window === "undefined") return;
  watching = true;
  window.addEventListener("storage", (e) => {
    if (e.key === null || e.key === ENABLED_KEY) notifyStore.set(computeState());
  });
  void navigator.permissions
    ?.query({ name: "notifications" as PermissionName })
    .then((status) => status.addEventListener("change", () => notifyStore.set(computeState())))
    .catch(() => {});
}

/** Asks for permission only here, from a click. */
export async function enableNotify(): Promise<NotifyState> {
  if (!supported()) return "unsupported";
  let permission = Notification.permission;
  if (permission === "default") permission = await Notification.requestPermission();
  if (permission === "granted") {
    try {
      window.localStorage.setItem(ENABLED_KEY, "on");
    } catch {
      // Not remembered; nothing to show without storage either.
    }
  }
  const state = computeState();
  notifyStore.set(state);
  return state;
}

export function disableNotify(): void {
  try {
    window.localStorage.removeItem(ENABLED_KEY);
  } catch {
    // nothing stored
  }
  notifyStore.set(computeState());
}

// ---- which tab shows it -----------------------------------------------------------

let releaseVisible: (() => void) | null = null;

function holdVisibleLock(): void {
  const locks = navigator.locks;
  if (!locks) return;
  if (document.visibilityState === "visible") {
    if (releaseVisible) return;
    const held = new Promise<void>((resolve) => (releaseVisible = resolve));
    void locks.request(VISIBLE_LOCK, { mode: "shared" }, () => held).catch(() => {});
  } else if (releaseVisible) {
    releaseVisible();
    releaseVisible = null;
  }
}

let tracking = false;

/** Called when the tab's feed starts: from then on this tab tells the others whether it is visible. */
export function trackVisibility(): void {
  if (tracking || typeof document === "undefined") return;
  tracking = true;
  holdVisibleLock();
  document.addEventListener("visibilitychange", holdVisibleLock);
}

async function anotherTabVisible(): Promise<boolean> {
  const locks = navigator.locks;
  if (!locks?.query) return false;
  try {
    const snapshot = await locks.query();
    return (snapshot.held ?? []).some((l) => l.name === VISIBLE_LOCK);
  } catch {
    return false;
  }
}

/** Check-and-set of the per-notice marker; true when this call took it. */
function takeMarker(noticeId: string): boolean {
  try {
    const raw = window.localStorage.getItem(SHOWN_KEY);
    const shown: unknown = raw ? JSON.parse(raw) : [];
    const ids = Array.isArray(shown) ? shown.filter((x): x is string => typeof x === "string") : [];
    if (ids.includes(noticeId)) return false;
    ids.push(noticeId);
    window.localStorage.setItem(SHOWN_KEY, JSON.stringify(ids.slice(-SHOWN_KEEP)));
    return true;
  } catch {
    return true;
  }
}

function show(n: NoticeToShow): void {
  if (!takeMarker(n.noticeId)) return;
  const notification = new Notification(n.title, { body: n.text, tag: `herald-notice-${n.noticeId}` });
  notification.onclick = () => {
    window.focus();
    notification.close();
    window.location.assign(`/c/${encodeURIComponent(n.conversationId)}#notice-${encodeURIComponent(n.noticeId)}`);
  };
}

/** A notice arrived on this tab's feed. */
export async function notifyNotice(n: NoticeToShow): Promise<void> {
  if (computeState() !== "on" || document.visibilityState === "visible") return;
  if (await anotherTabVisible()) return;
  const locks = navigator.locks;
  if (!locks) return show(n);
  await locks
    .request(`herald-notice-${n.noticeId}`, { ifAvailable: true }, async (lock) => {
      if (lock) show(n);
    })
    .catch(() => {});
}
