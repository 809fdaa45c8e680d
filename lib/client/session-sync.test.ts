import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

let sync: typeof import("./session-sync");
let api: typeof import("./api");
let assign: ReturnType<typeof vi.fn>;
let otherTab: BroadcastChannel;
let stop: () => void;

beforeEach(async () => {
  vi.resetModules();
  assign = vi.fn();
  vi.stubGlobal("window", { location: { pathname: "/c/x", search: "", assign } });
  // Every request of this tab meets a session that has already ended.
  vi.stubGlobal(
    "fetch",
    vi.fn(
      async () =>
        new Response(JSON.stringify({ error: { code: "unauthorized", message: "Sign in" } }), { status: 401 }),
    ),
  );
  sync = await import("./session-sync");
  api = await import("./api");
  stop = sync.followSignOut();
  otherTab = new BroadcastChannel("herald-session");
});

afterEach(() => {
  stop();
  otherTab.close();
  vi.unstubAllGlobals();
});

describe("sign-out across tabs", () => {
  it("a 401 met after another tab began signing out says so on the sign-in page", async () => {
    otherTab.postMessage("signing-out");
    await vi.waitFor(() => expect(api.signInHref()).toContain("signedOut=1"));
    // The session ended before the signing tab heard back: this tab's poll sees the 401 first.
    await expect(api.listConversations()).rejects.toThrow();
    expect(assign).toHaveBeenCalledTimes(1);
    expect(assign).toHaveBeenCalledWith(`/sign-in?next=${encodeURIComponent("/c/x")}&signedOut=1`);
    // The signing tab's "signed-out" that follows does not navigate a second time.
    otherTab.postMessage("signed-out");
    await expect(api.listConversations()).rejects.toThrow();
    expect(assign).toHaveBeenCalledTimes(1);
  });

  it("a 401 with no sign-out elsewhere is an ended session, said as such", async () => {
    await expect(api.listConversations()).rejects.toThrow();
    expect(assign).toHaveBeenCalledWith(`/sign-in?next=${encodeURIComponent("/c/x")}`);
  });

  it("signed-out takes the tab to sign-in at once", async () => {
    otherTab.postMessage("signed-out");
    await vi.waitFor(() =>
      expect(assign).toHaveBeenCalledWith(`/sign-in?next=${encodeURIComponent("/c/x")}&signedOut=1`),
    );
  });
});
