import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

/**
 * Drafts on a browser that may be shared: they come back to the account that
 * typed them only, and a sign-out (any of them, in any tab) removes them all.
 */
let session: { id: string } | null;
vi.mock("@/lib/auth/client", () => ({
  authClient: { getSession: async () => ({ data: session ? { user: session } : null }) },
}));

let draft: typeof import("./draft");
let store: Map<string, string>;

function localStorageOf(map: Map<string, string>): Storage {
  return {
    get length() {
      return map.size;
    },
    key: (i: number) => [...map.keys()][i] ?? null,
    getItem: (k: string) => map.get(k) ?? null,
    setItem: (k: string, v: string) => void map.set(k, v),
    removeItem: (k: string) => void map.delete(k),
    clear: () => map.clear(),
  };
}

/** A fresh page load: the modules (and what they remember about the account) start again; the storage stays. */
async function load(account: string | null) {
  session = account ? { id: account } : null;
  vi.resetModules();
  draft = await import("./draft");
}

beforeEach(async () => {
  store = new Map();
  vi.stubGlobal("window", {
    localStorage: localStorageOf(store),
    location: { pathname: "/c/x", search: "", assign: vi.fn() },
  });
  await load("alice");
});

afterEach(() => vi.unstubAllGlobals());

const KEY = "herald.draft:/c/x";
const written = () => vi.waitFor(() => expect(store.size).toBeGreaterThan(0));

describe("drafts", () => {
  it("come back to the same account after a reload or an ended session", async () => {
    draft.writeDraft(draft.draftKey("/c/x"), "half a thought");
    await written();
    await load("alice");
    expect(await draft.readDraft(KEY)).toBe("half a thought");
  });

  it("never to another account signing in on the same browser, whose typing there leaves it alone", async () => {
    draft.writeDraft(KEY, "alice's private draft");
    await written();
    await load("bob");
    expect(await draft.readDraft(KEY)).toBe("");
    draft.writeDraft(KEY, "bob was here");
    draft.writeDraft(KEY, "");
    await load(null);
    expect(await draft.readDraft(KEY)).toBe("");
    await load("alice");
    expect(await draft.readDraft(KEY)).toBe("alice's private draft");
  });

  it("a draft stored without an owner (older builds) is nobody's", async () => {
    store.set(KEY, "whose is this");
    expect(await draft.readDraft(KEY)).toBe("");
  });
});

describe("sign-out clears every draft of the browser", () => {
  async function seed() {
    draft.writeDraft(KEY, "one");
    draft.writeDraft("herald.draft:/", "two");
    await vi.waitFor(() => expect(store.size).toBe(2));
    store.set("herald.lang", "en");
  }

  it("the sign-out button (signing-out is announced before the request)", async () => {
    await seed();
    const sync = await import("./session-sync");
    sync.announceSigningOut();
    expect([...store.keys()]).toEqual(["herald.lang"]);
    // A keystroke on the way to sign-in writes nothing back.
    draft.writeDraft(KEY, "one more");
    await Promise.resolve();
    expect([...store.keys()]).toEqual(["herald.lang"]);
  });

  it("sign out of all devices and account deletion (signed-out only)", async () => {
    await seed();
    (await import("./session-sync")).announceSignOut();
    expect([...store.keys()]).toEqual(["herald.lang"]);
  });

  it("another tab's sign-out", async () => {
    await seed();
    const sync = await import("./session-sync");
    const stop = sync.followSignOut();
    const otherTab = new BroadcastChannel("herald-session");
    try {
      otherTab.postMessage("signing-out");
      await vi.waitFor(() => expect([...store.keys()]).toEqual(["herald.lang"]));
    } finally {
      stop();
      otherTab.close();
    }
  });
});
