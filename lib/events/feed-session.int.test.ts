import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { getAuth, userFromHeaders } from "@/lib/auth/auth";
import { getDb } from "@/lib/db/client";
import { db, transaction } from "@/lib/db/kysely";
import { sql } from "kysely";
import { emitEvent } from "@/lib/events/emit";
import * as events from "@/app/api/events/route";
import { call, ORIGIN, signUp, type TestUser } from "@/tests/helpers";

// Short heartbeats: the session re-check rides on them.
const HEARTBEAT_MS = 250;
// Upper bounds for "the stream ended" (met in well under a second on an idle machine):
// loose for loaded CI, still far below the one-minute heartbeat of the tests that use it.
const PROMPTLY_MS = 10_000;
beforeAll(() => {
  vi.stubEnv("HERALD_FEED_HEARTBEAT_MS", String(HEARTBEAT_MS));
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.stubEnv("HERALD_FEED_HEARTBEAT_MS", String(HEARTBEAT_MS));
});

interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
}

/** Reads a feed until it ends (or the deadline passes), keeping every event and the raw text. */
function feedReader(res: Response) {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let raw = "";
  let ended = false;
  const events: SseEvent[] = [];
  let pending: ReturnType<typeof reader.read> | null = null;
  const parse = () => {
    const blocks = raw.split("\n\n");
    events.length = 0;
    for (const block of blocks.slice(0, -1)) {
      const ev: SseEvent = {};
      for (const line of block.split("\n")) {
        const m = /^(id|event|data): ?(.*)$/.exec(line);
        if (m) ev[m[1] as keyof SseEvent] = m[2];
      }
      if (ev.event || ev.data) events.push(ev);
    }
  };
  async function readFor(ms: number, stop: () => boolean): Promise<void> {
    const deadline = Date.now() + ms;
    while (!ended && !stop() && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<null>((r) => (timer = setTimeout(() => r(null), deadline - Date.now())));
      pending ??= reader.read();
      const chunk = await Promise.race([pending, timeout]);
      clearTimeout(timer);
      if (!chunk) break;
      pending = null;
      if (chunk.done) ended = true;
      else raw += dec.decode(chunk.value, { stream: true });
      parse();
    }
  }
  return {
    events,
    raw: () => raw,
    /** Resolves once n events arrived (or ms passed). */
    until: (n: number, ms = PROMPTLY_MS) => readFor(ms, () => events.length >= n),
    /** Resolves true when the server ended the stream within ms. */
    async ended(ms: number): Promise<boolean> {
      await readFor(ms, () => false);
      return ended;
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
}

async function openFeed(user: TestUser) {
  const r = await call(events.GET, { user, path: "/api/events?after=0" });
  expect(r.status).toBe(200);
  return feedReader(r.res);
}

async function emit(user: TestUser, tag: string, n = 1) {
  for (let i = 0; i < n; i++) {
    await transaction((tx) => emitEvent(tx, user.id, { type: "task.updated", data: { task: { tag, i } as never } }));
  }
}

const tags = (evs: SseEvent[]) => evs.map((e) => JSON.parse(e.data ?? "{}").task?.tag);

async function authPost(path: string, cookie: string, body?: unknown): Promise<Response> {
  return getAuth().handler(
    new Request(`${ORIGIN}/api/auth${path}`, {
      method: "POST",
      headers: { cookie, origin: ORIGIN, "content-type": "application/json" },
      body: JSON.stringify(body ?? {}),
    }),
  );
}

/** A second, independent session of the same account (another device). */
async function signInAgain(user: TestUser): Promise<TestUser> {
  const res = await authPost("/sign-in/email", "", { email: user.email, password: "correct horse battery" });
  expect(res.status).toBe(200);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return { ...user, cookie };
}

describe("the feed ends with its session", () => {
  it("sign-out ends an open feed at once and nothing emitted afterwards is delivered", async () => {
    // A heartbeat far beyond the bound: the end must come from the sign-out itself.
    vi.stubEnv("HERALD_FEED_HEARTBEAT_MS", "60000");
    const u = await signUp("FeedOut");
    const feed = await openFeed(u);
    await emit(u, "before");
    await feed.until(1);
    expect(tags(feed.events)).toEqual(["before"]);

    expect((await authPost("/sign-out", u.cookie)).status).toBe(200);
    await emit(u, "after", 3);
    expect(await feed.ended(PROMPTLY_MS)).toBe(true);
    expect(tags(feed.events)).toEqual(["before"]);
  });

  it("sign-out ends an open feed even when nothing more happens on the account", async () => {
    vi.stubEnv("HERALD_FEED_HEARTBEAT_MS", "60000");
    const u = await signUp("FeedQuiet");
    const feed = await openFeed(u);
    await emit(u, "before");
    await feed.until(1);
    expect((await authPost("/sign-out", u.cookie)).status).toBe(200);
    // No event wakes it and the heartbeat is a minute away: the session-ended notification does it.
    expect(await feed.ended(PROMPTLY_MS)).toBe(true);
  });

  it("an event committed after the session is gone is never read out, even before any heartbeat or notification", async () => {
    vi.stubEnv("HERALD_FEED_HEARTBEAT_MS", "60000");
    const u = await signUp("FeedGone");
    const feed = await openFeed(u);
    await emit(u, "before");
    await feed.until(1);
    const { sessionId } = (await userFromHeaders(new Headers({ cookie: u.cookie })))!;
    // Behind better-auth's back: no database hook fires, so no session-ended notification.
    await db().deleteFrom("session").where("id", "=", sessionId).execute();
    await emit(u, "after", 2);
    expect(await feed.ended(PROMPTLY_MS)).toBe(true);
    expect(tags(feed.events)).toEqual(["before"]);
  });

  it("a session that expires ends its feed within a heartbeat; the account's other sessions keep theirs", async () => {
    const u = await signUp("FeedExpire");
    const other = await signInAgain(u);
    const feed = await openFeed(u);
    const survivor = await openFeed(other);
    await emit(u, "before");
    await feed.until(1);
    await survivor.until(1);

    const { sessionId } = (await userFromHeaders(new Headers({ cookie: u.cookie })))!;
    expect(await getDb().session.count({ where: { userId: u.id } })).toBe(2);
    // The feed's session expires: no hook, no notification, only the heartbeat can notice.
    await db()
      .updateTable("session")
      .set({ expiresAt: sql<Date>`now() - interval '1 second'` })
      .where("id", "=", sessionId)
      .execute();
    expect(await feed.ended(PROMPTLY_MS)).toBe(true);

    // The other device's feed is untouched.
    await emit(u, "later");
    await survivor.until(2);
    expect(tags(survivor.events)).toEqual(["before", "later"]);
    expect(tags(feed.events)).toEqual(["before"]);
    await survivor.cancel();
  });

  it("revoking every session closes the feeds of both devices; nothing afterwards is delivered", async () => {
    const u = await signUp("FeedRevoke");
    const phone = await signInAgain(u);
    const laptop = await openFeed(u);
    const phoneFeed = await openFeed(phone);
    await emit(u, "before");
    await laptop.until(1);
    await phoneFeed.until(1);

    const res = await authPost("/revoke-sessions", u.cookie);
    expect(res.status).toBe(200);
    expect(await getDb().session.count({ where: { userId: u.id } })).toBe(0);
    await emit(u, "after", 2);
    expect(await laptop.ended(PROMPTLY_MS)).toBe(true);
    expect(await phoneFeed.ended(PROMPTLY_MS)).toBe(true);
    expect(tags(laptop.events)).toEqual(["before"]);
    expect(tags(phoneFeed.events)).toEqual(["before"]);
    // And a new feed with either cookie is refused.
    expect((await call(events.GET, { user: phone, path: "/api/events" })).status).toBe(401);
  });

  it("at most HERALD_MAX_FEEDS_PER_ACCOUNT feeds per account: a new one pushes out the oldest, which backs off", async () => {
    vi.stubEnv("HERALD_MAX_FEEDS_PER_ACCOUNT", "2");
    const u = await signUp("FeedCap");
    const stranger = await signUp("FeedCapOther");
    const first = await openFeed(u);
    const second = await openFeed(u);
    const strangers = await openFeed(stranger);
    const third = await openFeed(u);

    expect(await first.ended(PROMPTLY_MS)).toBe(true);
    // Its EventSource is told to wait before coming back, so tabs do not take turns evicting each other.
    expect(first.raw()).toMatch(/retry: 60000\n/);

    await emit(u, "live");
    await emit(stranger, "theirs");
    await second.until(1);
    await third.until(1);
    await strangers.until(1);
    expect(tags(second.events)).toEqual(["live"]);
    expect(tags(third.events)).toEqual(["live"]);
    expect(tags(strangers.events)).toEqual(["theirs"]);
    expect(tags(first.events)).toEqual([]);
    await Promise.all([second.cancel(), third.cancel(), strangers.cancel()]);
  });

  it("with a cap of one, the newer feed replaces the only one and is served", async () => {
    vi.stubEnv("HERALD_MAX_FEEDS_PER_ACCOUNT", "1");
    const u = await signUp("FeedCapOne");
    const first = await openFeed(u);
    const second = await openFeed(u);
    expect(await first.ended(PROMPTLY_MS)).toBe(true);
    await emit(u, "live");
    await second.until(1);
    expect(tags(second.events)).toEqual(["live"]);
    await second.cancel();
  });
});
