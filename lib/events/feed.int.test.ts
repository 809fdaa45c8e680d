import { afterEach, describe, expect, it, vi } from "vitest";
import { getDb } from "@/lib/db/client";
import { transaction } from "@/lib/db/kysely";
import { emitEvent } from "@/lib/events/emit";
import { feedReads } from "@/lib/events/feed-sql";
import * as events from "@/app/api/events/route";
import { call, signUp, type TestUser } from "@/tests/helpers";
import { takeSseFrames, type SseFrame } from "@/tests/sse";

/** Reads an SSE response incrementally; `next(n)` resolves with the next n non-comment events. */
function sseReader(res: Response) {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = "";
  const queue: SseFrame[] = [];
  // A read that lost the race against a timeout stays pending; keep it so its chunk is not lost.
  let pending: ReturnType<typeof reader.read> | null = null;
  async function fill(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((r) => (timer = setTimeout(() => r(null), timeoutMs)));
    pending ??= reader.read();
    const chunk = await Promise.race([pending, timeout]);
    clearTimeout(timer);
    if (!chunk) return false;
    pending = null;
    if (chunk.done) return false;
    const { frames, rest } = takeSseFrames(buf + dec.decode(chunk.value, { stream: true }));
    buf = rest;
    queue.push(...frames);
    return true;
  }
  return {
    async next(n: number, timeoutMs = 5000): Promise<SseFrame[]> {
      const deadline = Date.now() + timeoutMs;
      while (queue.length < n && Date.now() < deadline) if (!(await fill(deadline - Date.now()))) break;
      return queue.splice(0, n);
    },
    /** Collects whatever arrives within ms; used to prove that nothing (foreign) arrives. */
    async drain(ms: number): Promise<SseFrame[]> {
      const deadline = Date.now() + ms;
      while (Date.now() < deadline) if (!(await fill(deadline - Date.now()))) break;
      return queue.splice(0);
    },
    cancel: () => reader.cancel(),
  };
}

// The log does not read payloads: a tagged stand-in for a task is enough to follow an event through it.
async function emitN(user: TestUser, n: number, tag: string) {
  for (let i = 0; i < n; i++) {
    await transaction((tx) => emitEvent(tx, user.id, { type: "task.updated", data: { task: { tag, i } as never } }));
  }
}

function openFeed(user: TestUser, after?: string, header?: string) {
  const res = call(events.GET, {
    user,
    path: `/api/events${after !== undefined ? `?after=${after}` : ""}`,
    headers: header ? { "last-event-id": header } : {},
  });
  return { res };
}

afterEach(() => vi.unstubAllEnvs());

describe("event feed", () => {
  it("resume after N replays exactly the events after N, in order, then streams live ones", async () => {
    const u = await signUp("Feed");
    await emitN(u, 5, "old");
    const { res } = openFeed(u, "2");
    const r = await res;
    expect(r.status).toBe(200);
    expect(r.res.headers.get("content-type")).toContain("text/event-stream");
    const sse = sseReader(r.res);
    const replay = await sse.next(3);
    expect(replay.map((e) => e.id)).toEqual(["3", "4", "5"]);
    expect(replay.map((e) => JSON.parse(e.data!).task.i)).toEqual([2, 3, 4]);
    await emitN(u, 2, "live");
    const live = await sse.next(2);
    expect(live.map((e) => e.id)).toEqual(["6", "7"]);
    expect(live.every((e) => e.event === "task.updated")).toBe(true);
    await sse.cancel();
  });

  it("Last-Event-ID header resumes like ?after=", async () => {
    const u = await signUp("Header");
    await emitN(u, 4, "x");
    const r = await openFeed(u, undefined, "3").res;
    const sse = sseReader(r.res);
    expect((await sse.next(1)).map((e) => e.id)).toEqual(["4"]);
    await sse.cancel();
  });

  it("a reader never sees a later seq before an earlier one, even when a later transaction finishes first", async () => {
    const u = await signUp("Order");
    const r = await openFeed(u, "0").res;
    const sse = sseReader(r.res);
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((res) => (releaseFirst = res));
    let firstEmitted!: () => void;
    const firstHasSeq = new Promise<void>((res) => (firstEmitted = res));
    const t1 = transaction(async (tx) => {
      await emitEvent(tx, u.id, { type: "task.updated", data: { task: { n: "first" } as never } });
      firstEmitted();
      await firstHolds;
    });
    await firstHasSeq;
    // The second writer finishes its own work now but must queue behind the first.
    const t2 = transaction((tx) =>
      emitEvent(tx, u.id, { type: "task.updated", data: { task: { n: "second" } as never } }),
    );
    expect(await sse.drain(500)).toEqual([]);
    releaseFirst();
    await Promise.all([t1, t2]);
    const got = await sse.next(2);
    expect(got.map((e) => [e.id, JSON.parse(e.data!).task.n])).toEqual([
      ["1", "first"],
      ["2", "second"],
    ]);
    const rows = await getDb().event.findMany({ where: { ownerId: u.id }, orderBy: { seq: "asc" } });
    expect(rows.map((e) => Number(e.seq))).toEqual([1, 2]);
    await sse.cancel();
  });

  it("B's feed never carries A's events", async () => {
    const a = await signUp("FeedA");
    const b = await signUp("FeedB");
    const rb = await openFeed(b, "0").res;
    const sseB = sseReader(rb.res);
    const ra = await openFeed(a, "0").res;
    const sseA = sseReader(ra.res);
    await emitN(a, 3, "a-only");
    expect((await sseA.next(3)).length).toBe(3);
    expect(await sseB.drain(700)).toEqual([]);
    await sseA.cancel();
    await sseB.cancel();
  });

  it("without a cursor the feed is live from now: no replay of old events", async () => {
    const u = await signUp("NoCursor");
    await emitN(u, 3, "old");
    const r = await openFeed(u).res;
    const sse = sseReader(r.res);
    expect(await sse.drain(400)).toEqual([]);
    await emitN(u, 1, "new");
    const [ev] = await sse.next(1);
    expect(ev.id).toBe("4");
    await sse.cancel();
  });

  it("a client that stops reading is dropped once its buffer passes the bound; it resumes by cursor", async () => {
    const u = await signUp("Slow");
    const r = await openFeed(u, "0").res;
    const big = "x".repeat(60_000);
    for (let i = 0; i < 25; i++) {
      await transaction((tx) => emitEvent(tx, u.id, { type: "task.updated", data: { task: { i, big } as never } }));
    }
    // Nothing was read so far; now drain what was buffered: the stream must end, not hang.
    const reader = r.res.body!.getReader();
    let bytes = 0;
    const ended = await (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return true;
        bytes += value.byteLength;
      }
    })();
    expect(ended).toBe(true);
    expect(bytes).toBeLessThan(25 * 60_000);
    const again = sseReader((await openFeed(u, "1").res).res);
    expect((await again.next(1)).map((e) => e.id)).toEqual(["2"]);
    await again.cancel();
  });

  it("the buffer bound is HERALD_FEED_BUFFER_BYTES as set when the stream sends, not when the module loaded", async () => {
    vi.stubEnv("HERALD_FEED_BUFFER_BYTES", "2000");
    const u = await signUp("SlowLater");
    const r = await openFeed(u, "0").res;
    // 300 KB: the stream's high-water mark and the response's own buffer come on top of the bound.
    const body = "y".repeat(10_000);
    for (let i = 0; i < 30; i++) {
      await transaction((tx) => emitEvent(tx, u.id, { type: "task.updated", data: { task: { i, body } as never } }));
    }
    const reader = r.res.body!.getReader();
    // Under the default bound (1 MB) this stream stays open: a read past its queue never settles.
    const ended = await (async () => {
      for (;;) {
        const next = await Promise.race([
          reader.read(),
          new Promise<null>((res) => setTimeout(() => res(null), 3_000)),
        ]);
        if (!next) return false;
        if (next.done) return true;
      }
    })();
    expect(ended).toBe(true);
    await reader.cancel();
  });

  it("a cursor beyond the log answers reset", async () => {
    const u = await signUp("Reset");
    await emitN(u, 1, "x");
    const r = await openFeed(u, "999").res;
    const sse = sseReader(r.res);
    const [first] = await sse.next(1);
    expect(first.event).toBe("reset");
    await sse.cancel();
  });

  it("N open feeds of one account cost one log read per wake-up, not one per feed", async () => {
    const u = await signUp("FanOut");
    const feeds = [];
    for (let i = 0; i < 8; i++) feeds.push(sseReader((await openFeed(u, "0").res).res));
    // Every feed is open and served once the first event reaches all of them.
    await emitN(u, 1, "warm");
    for (const f of feeds) expect((await f.next(1)).map((e) => e.id)).toEqual(["1"]);
    const before = { ...feedReads };
    const K = 5;
    for (let i = 0; i < K; i++) {
      await emitN(u, 1, "live");
      for (const f of feeds) expect((await f.next(1)).map((e) => e.id)).toEqual([String(i + 2)]);
    }
    // One read per event for all eight (a wake-up that raced the previous read may add one), none of their own.
    expect(feedReads.shared - before.shared).toBeGreaterThanOrEqual(1);
    expect(feedReads.shared - before.shared).toBeLessThanOrEqual(K + 1);
    expect(feedReads.own - before.own).toBe(0);
    await Promise.all(feeds.map((f) => f.cancel()));
  });

  it("a feed behind the account's shared read replays from the database on its own, then joins it without gaps or repeats", async () => {
    const u = await signUp("Lagging");
    const live = sseReader((await openFeed(u).res).res);
    // More than a page (500) behind, in one transaction to keep the test quick.
    await transaction(async (tx) => {
      for (let i = 0; i < 620; i++)
        await emitEvent(tx, u.id, { type: "task.updated", data: { task: { tag: "old", i } as never } });
    });
    expect((await live.next(620, 20_000)).length).toBe(620);
    const before = { ...feedReads };
    const lagging = sseReader((await openFeed(u, "3").res).res);
    // Live events keep coming while it replays: both streams must see each exactly once, in order.
    const writes = emitN(u, 20, "new");
    const got = await lagging.next(617 + 20, 30_000);
    await writes;
    expect(got.map((e) => Number(e.id))).toEqual(Array.from({ length: 637 }, (_, i) => i + 4));
    expect((await live.next(20)).map((e) => Number(e.id))).toEqual(Array.from({ length: 20 }, (_, i) => i + 621));
    expect(feedReads.own - before.own).toBeGreaterThanOrEqual(2);
    expect(await lagging.drain(300)).toEqual([]);
    await live.cancel();
    await lagging.cancel();
  });

  it("rejects a malformed cursor", async () => {
    const u = await signUp("BadCursor");
    const r = await openFeed(u, "abc").res;
    expect(r.status).toBe(400);
    expect(r.json.error.field).toBe("after");
  });
});
