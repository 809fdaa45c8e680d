import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

/**
 * Several tabs of one browser, each its own copy of the module (its own
 * `document.visibilityState`), sharing what a browser shares between tabs:
 * localStorage, Web Locks and the Notification permission.
 */
type Mode = "exclusive" | "shared";
interface Held {
  name: string;
  mode: Mode;
}

function fakeLocks() {
  const held: Held[] = [];
  const available = (name: string, mode: Mode) =>
    !held.some((h) => h.name === name && (h.mode === "exclusive" || mode === "exclusive"));
  return {
    held,
    async request(
      name: string,
      opts: { mode?: Mode; ifAvailable?: boolean },
      cb: (lock: Held | null) => Promise<unknown> | unknown,
    ) {
      const mode = opts.mode ?? "exclusive";
      if (!available(name, mode)) {
        if (opts.ifAvailable) return cb(null);
        throw new Error("fake locks: waiting is not modelled");
      }
      const lock = { name, mode };
      held.push(lock);
      try {
        return await cb(lock);
      } finally {
        held.splice(held.indexOf(lock), 1);
      }
    },
    async query() {
      return { held: held.map((h) => ({ ...h })), pending: [] };
    },
  };
}

const storage = new Map<string, string>();
let locks: ReturnType<typeof fakeLocks>;
const shown: { title: string; body?: string; tab: string }[] = [];
let currentTab = "";

class FakeNotification {
  static permission: NotificationPermission = "granted";
  static requestPermission = vi.fn(async () => FakeNotification.permission);
  onclick: (() => void) | null = null;
  constructor(title: string, options?: { body?: string }) {
    shown.push({ title, body: options?.body, tab: currentTab });
  }
  close() {}
}

interface Tab {
  name: string;
  visibility: "visible" | "hidden";
  mod: typeof import("./browser-notify");
  listeners: (() => void)[];
}

async function openTab(name: string, visibility: "visible" | "hidden"): Promise<Tab> {
  vi.resetModules();
  const tab = { name, visibility, listeners: [] } as unknown as Tab;
  // The module reads these globals at call time; each call below runs "in" its tab.
  enter(tab);
  tab.mod = await import("./browser-notify");
  tab.mod.trackVisibility();
  await Promise.resolve();
  return tab;
}

function enter(tab: Tab) {
  currentTab = tab.name;
  vi.stubGlobal("document", {
    get visibilityState() {
      return tab.visibility;
    },
    addEventListener: (_: string, fn: () => void) => tab.listeners.push(fn),
  });
}

async function setVisibility(tab: Tab, v: "visible" | "hidden") {
  tab.visibility = v;
  enter(tab);
  for (const fn of tab.listeners) fn();
  await new Promise((r) => setTimeout(r, 0));
}

const notice = {
  noticeId: "n1",
  conversationId: "c1",
  title: "Fund overlap",
  text: '"Fund overlap" finished; the report is ready.',
};

beforeEach(() => {
  storage.clear();
  shown.length = 0;
  locks = fakeLocks();
  FakeNotification.permission = "granted";
  vi.stubGlobal("window", {
    Notification: FakeNotification,
    localStorage: {
      getItem: (k: string) => storage.get(k) ?? null,
      setItem: (k: string, v: string) => void storage.set(k, v),
      removeItem: (k: string) => void storage.delete(k),
    },
    addEventListener: () => {},
    focus: () => {},
    location: { assign: () => {} },
  });
  vi.stubGlobal("Notification", FakeNotification);
  vi.stubGlobal("localStorage", (globalThis.window as unknown as { localStorage: Storage }).localStorage);
  vi.stubGlobal("navigator", { locks, permissions: undefined });
});

afterEach(() => vi.unstubAllGlobals());

describe("browser notifications for notices", () => {
  it("off until enabled from a click; a denied permission reads as blocked", async () => {
    const tab = await openTab("a", "hidden");
    await tab.mod.notifyNotice(notice);
    expect(shown).toEqual([]);
    expect(await tab.mod.enableNotify()).toBe("on");
    FakeNotification.permission = "denied";
    tab.mod.watchNotifyState();
    expect(tab.mod.notifyStore.get()).toBe("blocked");
  });

  it("two hidden tabs: one notification for a notice, whichever tab's copy of the event comes first", async () => {
    const a = await openTab("a", "hidden");
    const b = await openTab("b", "hidden");
    await a.mod.enableNotify();
    enter(a);
    const first = a.mod.notifyNotice(notice);
    enter(b);
    const second = b.mod.notifyNotice(notice);
    await Promise.all([first, second]);
    // A late copy (a reconnecting tab replaying the event) stays quiet too.
    enter(b);
    await b.mod.notifyNotice(notice);
    expect(shown.map(({ title, body }) => ({ title, body }))).toEqual([{ title: "Fund overlap", body: notice.text }]);
    // A different notice is its own notification.
    enter(b);
    await b.mod.notifyNotice({ ...notice, noticeId: "n2" });
    expect(shown).toHaveLength(2);
  });

  it("no notification while any tab of the account is visible; one once it is hidden", async () => {
    const visible = await openTab("v", "visible");
    const hidden = await openTab("h", "hidden");
    await hidden.mod.enableNotify();
    enter(visible);
    await visible.mod.notifyNotice(notice);
    enter(hidden);
    await hidden.mod.notifyNotice(notice);
    expect(shown).toEqual([]);
    await setVisibility(visible, "hidden");
    enter(hidden);
    await hidden.mod.notifyNotice({ ...notice, noticeId: "n3" });
    expect(shown.map((s) => s.tab)).toEqual(["h"]);
  });
});
