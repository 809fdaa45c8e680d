import { env } from "@/lib/config/env";
import type { RunDelta } from "@/lib/contract/shapes";
import { liveSessionIds } from "./session-liveness";
import { readOwnPage, readSharedPage, REPLAY_PAGE, resolveCursor } from "./feed-sql";
import { enc, eventFrame, frame, HEARTBEAT_FRAME } from "./sse";
import { DELTAS_CHANNEL, EVENTS_CHANNEL, SESSIONS_CHANNEL } from "./channels";
import { PgListener } from "./listener";
import { presenceIntervalMs, touchPresenceSoon } from "./presence";
import { log } from "@/lib/util/log";

/**
 * How long a feed pushed out by the per-account cap waits before its EventSource
 * reconnects (the SSE `retry:` it is sent last). Without it the oldest tab would
 * come straight back and push out the next oldest, round and round. A tab the user
 * returns to after 30 s reconnects at once anyway (lib/client/feed.ts).
 */
export const FEED_EVICTED_RETRY_MS = 60_000;
// Session lookups per statement at a heartbeat (ids in one array parameter).
const SESSION_CHECK_CHUNK = 1_000;

/** HERALD_FEED_HEARTBEAT_MS: a `:` heartbeat this often; each one also re-checks the feed's session (docs/api.md#event-feed). */
export function feedHeartbeatMs(): number {
  return env("HERALD_FEED_HEARTBEAT_MS");
}

/** HERALD_MAX_FEEDS_PER_ACCOUNT: open feeds per account in one web process; a new one pushes out the oldest. */
export function maxFeedsPerAccount(): number {
  return env("HERALD_MAX_FEEDS_PER_ACCOUNT");
}

interface SharedPage {
  frames: { seq: bigint; bytes: Uint8Array }[];
  /** Every frame of the page in one buffer; null when the page is empty. */
  joined: Uint8Array | null;
}

/**
 * One open SSE response. Idle it holds no timer and no buffer of its own: wake-ups,
 * heartbeats and session checks come from the hub, which reads the log once per
 * account and hands every stream the frames past its cursor.
 */
class FeedStream {
  cursor = 0n;
  /** Cursor resolved and the opening frames sent: wake-ups may serve it. */
  ready = false;
  closed = false;
  /** Reading the log on its own (it was behind the account's shared read). */
  private pumping = false;
  private again = false;

  constructor(
    readonly ownerId: string,
    readonly sessionId: string | null,
    private readonly controller: ReadableStreamDefaultController<Uint8Array>,
    private readonly onClose: (s: FeedStream) => void,
  ) {}

  send(bytes: Uint8Array): void {
    if (this.closed) return;
    this.controller.enqueue(bytes);
    // A client this far behind is dropped; it resumes by cursor.
    if ((this.controller.desiredSize ?? 0) < -env("HERALD_FEED_BUFFER_BYTES")) this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
    try {
      this.controller.close();
    } catch {
      /* already closed by the runtime */
    }
  }

  /** Frames of the shared read, unless this stream is reading on its own or is behind it. */
  serve(from: bigint, page: SharedPage): void {
    if (this.pumping) {
      this.again = true;
      return;
    }
    if (this.cursor < from) {
      void this.pump();
      return;
    }
    const { frames, joined } = page;
    // The usual case, a feed exactly at the read's start: the whole page as one chunk.
    if (this.cursor === from && joined) {
      this.send(joined);
      this.cursor = frames[frames.length - 1].seq;
      return;
    }
    for (const f of frames) {
      if (this.closed) return;
      if (f.seq <= this.cursor) continue;
      this.send(f.bytes);
      this.cursor = f.seq;
    }
  }

  /** Reads from its own cursor to the end of the log: replays, and catching up to the shared read. */
  async pump(): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        for (;;) {
          const rows = await readOwnPage(this.ownerId, this.sessionId, this.cursor);
          if (!rows[0]?.live) return this.close();
          let sent = 0;
          for (const r of rows) {
            if (this.closed) return;
            if (r.seq === null) continue;
            // Seqs are contiguous per account, so a jump means retention removed events this
            // stream had not seen (between resolveCursor and this read): say so, as a stale cursor would.
            if (r.seq > this.cursor + 1n) {
              this.send(enc.encode(frame({ id: (r.seq - 1n).toString(), event: "reset", data: "{}" })));
            }
            this.send(eventFrame(r));
            this.cursor = r.seq;
            sent += 1;
          }
          if (sent < REPLAY_PAGE) break;
        }
      } while (this.again && !this.closed);
    } catch (err) {
      log("feed").error({ err }, "pump failed");
      this.close();
    } finally {
      this.pumping = false;
    }
  }
}

class AccountFeeds {
  /** Insertion order: the first one is the account's oldest feed. */
  readonly streams = new Set<FeedStream>();
  /** The last seq the shared read has seen; null until the first stream is ready. */
  head: bigint | null = null;
  reading = false;
  again = false;
  checking: Promise<void> | null = null;
  constructor(readonly ownerId: string) {}
}

/**
 * Per-process fan-out for the SSE feed (docs/api.md#event-feed). A notification only
 * says "account X has new events"; the hub then reads the account's log once, from
 * the highest seq it has read for that account, and every open stream of the account
 * takes the frames past its own cursor. A stream behind that read (a replay after a
 * reconnect, a gap) reads from its own cursor first. Ordering and gap-freedom come
 * from the database, never from the order notifications arrive in.
 */
class FeedHub {
  private accounts = new Map<string, AccountFeeds>();
  private streamCount = 0;
  /** Touches presenceAt of every account with a feed open here (lib/events/presence.ts). */
  private presenceTimer: NodeJS.Timeout | null = null;
  private presencePending = new Set<string>();
  private presenceFlush: NodeJS.Immediate | null = null;
  /** One heartbeat for every stream in the process: one session query per tick, not one per stream. */
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private listener = new PgListener(
    [EVENTS_CHANNEL, DELTAS_CHANNEL, SESSIONS_CHANNEL],
    (channel, payload) => this.dispatch(channel, payload),
    () => this.wakeAll(),
    (m) => log("feed").warn(m),
  );
  /** Other readers of an account's log in this process (watchAccount), woken by the same connection. */
  private watchers = new Map<string, Set<() => void>>();

  start(): Promise<void> {
    return this.listener.start();
  }

  watch(ownerId: string, wake: () => void): () => void {
    const set = this.watchers.get(ownerId) ?? new Set<() => void>();
    this.watchers.set(ownerId, set);
    set.add(wake);
    return () => {
      set.delete(wake);
      if (set.size === 0 && this.watchers.get(ownerId) === set) this.watchers.delete(ownerId);
    };
  }

  /** Joins the stream to its account (pushing out the oldest past the cap); not served until `ready`. */
  add(stream: FeedStream): void {
    const acc = this.accounts.get(stream.ownerId) ?? new AccountFeeds(stream.ownerId);
    const max = maxFeedsPerAccount();
    for (const oldest of acc.streams) {
      if (acc.streams.size < max) break;
      this.evict(oldest);
    }
    // After the evictions: pushing out the account's last feed drops its entry.
    this.accounts.set(stream.ownerId, acc);
    acc.streams.add(stream);
    this.streamCount += 1;
    this.touchSoon(stream.ownerId);
    this.presenceTimer ??= setInterval(() => {
      if (this.accounts.size === 0) {
        clearInterval(this.presenceTimer!);
        this.presenceTimer = null;
        return;
      }
      touchPresenceSoon([...this.accounts.keys()], { skipLocked: true });
    }, presenceIntervalMs());
    this.presenceTimer.unref?.();
    this.heartbeatTimer ??= setInterval(() => void this.heartbeat(), feedHeartbeatMs());
    this.heartbeatTimer.unref?.();
  }

  remove(stream: FeedStream): void {
    const acc = this.accounts.get(stream.ownerId);
    if (!acc?.streams.delete(stream)) return;
    this.streamCount -= 1;
    if (acc.streams.size === 0 && this.accounts.get(stream.ownerId) === acc) this.accounts.delete(stream.ownerId);
    if (this.streamCount === 0 && this.heartbeatTimer) {
      clearInterval(this.heartbeatTimer);
      this.heartbeatTimer = null;
    }
    // The last moment this tab was open is now, not the previous interval's touch.
    this.touchSoon(stream.ownerId);
  }

  /**
   * Feeds opening or closing together (a reconnect storm after a deploy, a bench) touch
   * presence in one UPDATE per tick instead of one per feed on the same few user rows.
   */
  private touchSoon(ownerId: string): void {
    this.presencePending.add(ownerId);
    this.presenceFlush ??= setImmediate(() => {
      const ids = [...this.presencePending];
      this.presencePending.clear();
      this.presenceFlush = null;
      touchPresenceSoon(ids);
    });
  }

  /** The stream's cursor is resolved: from now on the account's reads serve it. */
  ready(stream: FeedStream): void {
    const acc = this.accounts.get(stream.ownerId);
    if (!acc || stream.closed) return;
    stream.ready = true;
    acc.head ??= stream.cursor;
    // Events may have committed since its cursor was read, and their wake-ups may have
    // come and gone: one read covers them. A read under way did not check this stream's
    // session, so it is served by the next one (the coalesced `again`).
    void this.read(acc);
  }

  private evict(stream: FeedStream): void {
    stream.send(
      enc.encode(frame({ retry: FEED_EVICTED_RETRY_MS, comment: "replaced by a newer feed of this account" })),
    );
    stream.close();
  }

  /** One log read per wake-up for all the account's streams; wake-ups during a read coalesce into one more. */
  private async read(acc: AccountFeeds): Promise<void> {
    if (acc.reading) {
      acc.again = true;
      return;
    }
    acc.reading = true;
    try {
      do {
        acc.again = false;
        if (acc.head === null || acc.streams.size === 0) break;
        const from = acc.head;
        const targets = [...acc.streams].filter((s) => s.ready && !s.closed);
        const sessionIds = [...new Set(targets.flatMap((s) => (s.sessionId ? [s.sessionId] : [])))];
        const rows = await readSharedPage(acc.ownerId, sessionIds, from);
        const live = new Set(rows[0]?.live ?? []);
        const frames = rows.filter((r) => r.seq !== null).map((r) => ({ seq: r.seq!, bytes: eventFrame(r) }));
        if (frames.length > 0) acc.head = frames[frames.length - 1].seq;
        const page: SharedPage = {
          frames,
          joined:
            frames.length === 1
              ? frames[0].bytes
              : frames.length > 1
                ? Buffer.concat(frames.map((f) => f.bytes))
                : null,
        };
        for (const s of targets) {
          if (s.closed) continue;
          if (s.sessionId && !live.has(s.sessionId)) s.close();
          else s.serve(from, page);
        }
        if (frames.length === REPLAY_PAGE) acc.again = true;
      } while (acc.again);
    } catch (err) {
      // As when a stream's own read fails: its client reconnects and resumes by cursor.
      log("feed").error({ err }, "read failed");
      for (const s of [...acc.streams]) if (s.ready) s.close();
    } finally {
      acc.reading = false;
    }
  }

  /** Closes the streams among `streams` whose session is gone (or cannot be checked). */
  private async checkSessions(streams: FeedStream[]): Promise<void> {
    const bound = streams.filter((s) => s.sessionId && !s.closed);
    for (let i = 0; i < bound.length; i += SESSION_CHECK_CHUNK) {
      const chunk = bound.slice(i, i + SESSION_CHECK_CHUNK);
      let live: Set<string>;
      try {
        live = await liveSessionIds([...new Set(chunk.map((s) => s.sessionId!))]);
      } catch (err) {
        // Unverifiable is not valid: the client reconnects through the session check.
        log("feed").error({ err }, "session check failed");
        live = new Set();
      }
      for (const s of chunk) if (!live.has(s.sessionId!)) s.close();
    }
  }

  private async heartbeat(): Promise<void> {
    const all: FeedStream[] = [];
    for (const acc of this.accounts.values()) for (const s of acc.streams) if (s.ready) all.push(s);
    await this.checkSessions(all);
    for (const s of all) s.send(HEARTBEAT_FRAME);
  }

  /** A session of the account ended somewhere: check its streams now (coalesced per account). */
  private recheck(acc: AccountFeeds): void {
    acc.checking ??= this.checkSessions([...acc.streams]).finally(() => (acc.checking = null));
  }

  private dispatch(channel: string, payload: string): void {
    let msg: { o?: string } & Partial<RunDelta>;
    try {
      msg = JSON.parse(payload);
    } catch {
      return;
    }
    if (channel === EVENTS_CHANNEL && msg.o) for (const wake of this.watchers.get(msg.o) ?? []) wake();
    const acc = msg.o ? this.accounts.get(msg.o) : undefined;
    if (!acc) return;
    if (channel === EVENTS_CHANNEL) void this.read(acc);
    else if (channel === SESSIONS_CHANNEL) this.recheck(acc);
    else if (channel === DELTAS_CHANNEL) {
      const { runId, conversationId, delta, offset } = msg;
      if (typeof runId !== "string" || typeof delta !== "string" || typeof offset !== "number") return;
      const d: RunDelta = { runId, conversationId: conversationId ?? "", delta, offset };
      const bytes = enc.encode(frame({ event: "run.delta", data: JSON.stringify(d) }));
      for (const s of acc.streams) s.send(bytes);
    }
  }

  /**
   * After a LISTEN reconnect: events and session ends may have been missed. A read
   * re-reads the log, and every read re-checks the sessions too.
   */
  private wakeAll(): void {
    for (const acc of this.accounts.values()) void this.read(acc);
    for (const set of this.watchers.values()) for (const wake of set) wake();
  }
}

const g = globalThis as unknown as { heraldFeedHub?: FeedHub };
const hub = () => (g.heraldFeedHub ??= new FeedHub());

/**
 * `wake` runs whenever the account has new events, and after a LISTEN reconnect (some may have been
 * missed): for readers of the log other than the feed (the Agent Protocol's run streams), so a web
 * process holds one LISTEN connection whatever it serves. Resolves once listening; returns the unsubscribe.
 */
export async function watchAccount(ownerId: string, wake: () => void): Promise<() => void> {
  const h = hub();
  const unwatch = h.watch(ownerId, wake);
  try {
    await h.start();
  } catch (err) {
    unwatch();
    throw err;
  }
  return unwatch;
}

/**
 * The account's live feed. With `sessionId` (every browser feed) the stream lives
 * only as long as that session: it is re-checked at every heartbeat, whenever a
 * session of the account ends (SESSIONS_CHANNEL), and atomically with every log
 * read, and the stream closes once it is gone — sign-out, revocation, expiry.
 */
export function openFeed(
  ownerId: string,
  after: bigint | null,
  signal: AbortSignal,
  sessionId?: string,
): ReadableStream<Uint8Array> {
  let stream: FeedStream | null = null;
  const h = hub();
  return new ReadableStream<Uint8Array>(
    {
      async start(controller) {
        const s = new FeedStream(ownerId, sessionId ?? null, controller, (x) => {
          signal.removeEventListener("abort", onAbort);
          h.remove(x);
        });
        stream = s;
        const onAbort = () => s.close();
        if (signal.aborted) return s.close();
        signal.addEventListener("abort", onAbort, { once: true });
        try {
          await h.start();
          if (s.closed) return;
          // Joined before the cursor is read, so nothing committed in between is missed.
          h.add(s);
          const resolved = await resolveCursor(ownerId, after);
          if (s.closed) return;
          s.cursor = resolved.cursor;
          // The id-only frame sets the browser's lastEventId now, so a reconnect before
          // the first event still resumes from here instead of "live from now".
          s.send(enc.encode(frame({ retry: 3000, comment: "herald feed", id: s.cursor.toString() })));
          if (resolved.reset) s.send(enc.encode(frame({ id: s.cursor.toString(), event: "reset", data: "{}" })));
          h.ready(s);
        } catch (err) {
          log("feed").error({ err }, "could not open the feed");
          s.close();
        }
      },
      cancel() {
        stream?.close();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
  );
}
