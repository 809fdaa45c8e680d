import { env } from "@/lib/config/env";
import { getDb } from "@/lib/db/client";
import type { RunDelta } from "@/lib/contract/shapes";
import { liveSessionIds } from "./session-liveness";
import { DELTAS_CHANNEL, EVENTS_CHANNEL, SESSIONS_CHANNEL } from "./channels";
import { PgListener } from "./listener";
import { presenceIntervalMs, touchPresenceSoon } from "./presence";

/**
 * Per-process fan-out for the SSE feed (docs/api.md#event-feed). A notification only says
 * "account X has new events"; each stream then reads its own cursor range from
 * the log, so ordering and gap-freedom come from the database, never from the
 * order notifications arrive in.
 */
interface Subscriber {
  wake(): void;
  delta(d: RunDelta): void;
  /** A session of the account ended somewhere: check ours now. */
  recheck(): void;
  /** Pushed out by a newer feed of the same account (the per-account cap). */
  evict(): void;
}

class FeedHub {
  private subs = new Map<string, Set<Subscriber>>();
  /** Touches presenceAt of every account with a feed open here (lib/events/presence.ts). */
  private presenceTimer: NodeJS.Timeout | null = null;
  private listener = new PgListener(
    [EVENTS_CHANNEL, DELTAS_CHANNEL, SESSIONS_CHANNEL],
    (channel, payload) => this.dispatch(channel, payload),
    () => this.wakeAll(),
    (m) => console.warn(`[feed] ${m}`),
  );

  async subscribe(ownerId: string, sub: Subscriber): Promise<() => void> {
    await this.listener.start();
    const set = this.subs.get(ownerId) ?? new Set<Subscriber>();
    // Sets iterate in insertion order: the first one is the account's oldest feed.
    const max = maxFeedsPerAccount();
    for (const oldest of set) {
      if (set.size < max) break;
      set.delete(oldest);
      oldest.evict();
    }
    set.add(sub);
    this.subs.set(ownerId, set);
    touchPresenceSoon([ownerId]);
    this.presenceTimer ??= setInterval(() => {
      if (this.subs.size === 0) {
        clearInterval(this.presenceTimer!);
        this.presenceTimer = null;
        return;
      }
      touchPresenceSoon([...this.subs.keys()]);
    }, presenceIntervalMs());
    this.presenceTimer.unref?.();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      set.delete(sub);
      if (set.size === 0 && this.subs.get(ownerId) === set) this.subs.delete(ownerId);
      // The last moment this tab was open is now, not the previous interval's touch.
      touchPresenceSoon([ownerId]);
    };
  }

  private dispatch(channel: string, payload: string): void {
    let msg: { o?: string } & Partial<RunDelta>;
    try {
      msg = JSON.parse(payload);
    } catch {
      return;
    }
    const set = msg.o ? this.subs.get(msg.o) : undefined;
    if (!set) return;
    if (channel === EVENTS_CHANNEL) for (const s of set) s.wake();
    else if (channel === SESSIONS_CHANNEL) for (const s of set) s.recheck();
    else if (channel === DELTAS_CHANNEL) {
      const { runId, conversationId, delta, offset } = msg;
      if (typeof runId !== "string" || typeof delta !== "string" || typeof offset !== "number") return;
      for (const s of set) s.delta({ runId, conversationId: conversationId ?? "", delta, offset });
    }
  }

  /**
   * After a LISTEN reconnect: events and session ends may have been missed. A wake
   * re-reads the log, and every read re-checks the session too.
   */
  private wakeAll(): void {
    for (const set of this.subs.values()) for (const s of set) s.wake();
  }
}

const g = globalThis as unknown as { heraldFeedHub?: FeedHub };
const hub = () => (g.heraldFeedHub ??= new FeedHub());

/** A `:` heartbeat every 15 s; each one also re-checks the feed's session (docs/api.md#event-feed). */
export const FEED_HEARTBEAT_MS = 15_000;
const REPLAY_PAGE = 500;
/** Bytes a slow client may have queued before we drop it; it resumes by cursor. */
export const FEED_BUFFER_BYTES = env("HERALD_FEED_BUFFER_BYTES");
/**
 * How long a feed pushed out by the per-account cap waits before its EventSource
 * reconnects (the SSE `retry:` it is sent last). Without it the oldest tab would
 * come straight back and push out the next oldest, round and round. A tab the user
 * returns to after 30 s reconnects at once anyway (lib/client/feed.ts).
 */
export const FEED_EVICTED_RETRY_MS = 60_000;

/** HERALD_FEED_HEARTBEAT_MS (tests shorten it). */
export function feedHeartbeatMs(): number {
  return env("HERALD_FEED_HEARTBEAT_MS");
}

/** HERALD_MAX_FEEDS_PER_ACCOUNT: open feeds per account in one web process; a new one pushes out the oldest. */
export function maxFeedsPerAccount(): number {
  return env("HERALD_MAX_FEEDS_PER_ACCOUNT");
}

function frame(fields: { id?: string; event?: string; data?: string; retry?: number; comment?: string }): string {
  let out = "";
  if (fields.comment !== undefined) out += `: ${fields.comment}\n`;
  if (fields.retry !== undefined) out += `retry: ${fields.retry}\n`;
  if (fields.id !== undefined) out += `id: ${fields.id}\n`;
  if (fields.event !== undefined) out += `event: ${fields.event}\n`;
  if (fields.data !== undefined) for (const line of fields.data.split("\n")) out += `data: ${line}\n`;
  return out + "\n";
}

/** Decides where a resuming client starts; `reset` when its cursor predates retention or our log. */
async function resolveCursor(ownerId: string, after: bigint | null): Promise<{ cursor: bigint; reset: boolean }> {
  const db = getDb();
  const user = await db.user.findUnique({ where: { id: ownerId }, select: { eventSeq: true } });
  const head = user?.eventSeq ?? 0n;
  if (after === null) return { cursor: head, reset: false };
  if (after > head) return { cursor: head, reset: true };
  if (after === head) return { cursor: after, reset: false };
  const oldest = await db.event.findFirst({ where: { ownerId }, orderBy: { seq: "asc" }, select: { seq: true } });
  if (!oldest || oldest.seq > after + 1n) return { cursor: head, reset: true };
  return { cursor: after, reset: false };
}

interface FeedRow {
  live: boolean;
  seq: bigint | null;
  type: string | null;
  payload: unknown;
}

/**
 * The next page of the account's log, read in the same statement (one snapshot) as
 * the session check: an event committed after the session was deleted is never
 * returned with `live` still true. Without a session id nothing is checked.
 */
function readPage(ownerId: string, sessionId: string | null, cursor: bigint): Promise<FeedRow[]> {
  return getDb().$queryRaw<FeedRow[]>`
    SELECT s.live, e.seq, e.type, e.payload
    FROM (SELECT ${sessionId}::text IS NULL
            OR EXISTS (SELECT 1 FROM "session" WHERE id = ${sessionId}::text AND "expiresAt" > now()) AS live) s
    LEFT JOIN LATERAL (
      SELECT seq, type, payload FROM "event"
      WHERE s.live AND "ownerId" = ${ownerId} AND seq > ${cursor}
      ORDER BY seq
      LIMIT ${REPLAY_PAGE}::int
    ) e ON true
    ORDER BY e.seq`;
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
  const enc = new TextEncoder();
  let cursor = after ?? 0n;
  let pumping = false;
  let again = false;
  let closed = false;
  // Wake-ups can arrive before the cursor is resolved; pumping then would replay from 0.
  let ready = false;
  let unsubscribe: (() => void) | null = null;
  let heartbeat: NodeJS.Timeout | null = null;
  let checking: Promise<void> | null = null;
  const heartbeatMs = feedHeartbeatMs();

  return new ReadableStream<Uint8Array>(
    {
      async start(controller) {
        const close = () => {
          if (closed) return;
          closed = true;
          unsubscribe?.();
          if (heartbeat) clearInterval(heartbeat);
          try {
            controller.close();
          } catch {
            /* already closed by the runtime */
          }
        };
        const send = (text: string) => {
          if (closed) return;
          controller.enqueue(enc.encode(text));
          if ((controller.desiredSize ?? 0) < -FEED_BUFFER_BYTES) close();
        };
        // Coalesced: a burst of session-ended notifications costs one lookup.
        const checkSession = (): Promise<void> => {
          if (!sessionId || closed) return Promise.resolve();
          checking ??= liveSessionIds([sessionId])
            .then((live) => {
              if (!live.has(sessionId)) close();
            })
            .catch((err) => {
              // Unverifiable is not valid: the client reconnects through the session check.
              console.error("[feed] session check failed", err);
              close();
            })
            .finally(() => (checking = null));
          return checking;
        };
        const pump = async () => {
          if (!ready) return;
          if (pumping) {
            again = true;
            return;
          }
          pumping = true;
          try {
            do {
              again = false;
              for (;;) {
                const rows = await readPage(ownerId, sessionId ?? null, cursor);
                if (!rows[0]?.live) return close();
                let sent = 0;
                for (const r of rows) {
                  if (closed) return;
                  if (r.seq === null) continue;
                  send(frame({ id: r.seq.toString(), event: r.type!, data: JSON.stringify(r.payload) }));
                  cursor = r.seq;
                  sent += 1;
                }
                if (sent < REPLAY_PAGE) break;
              }
            } while (again && !closed);
          } catch (err) {
            console.error("[feed] pump failed", err);
            close();
          } finally {
            pumping = false;
          }
        };

        if (signal.aborted) return close();
        signal.addEventListener("abort", close, { once: true });
        try {
          // Subscribe before the replay so nothing committed in between is missed.
          const unsub = await hub().subscribe(ownerId, {
            wake: () => void pump(),
            delta: (d) => send(frame({ event: "run.delta", data: JSON.stringify(d) })),
            recheck: () => void checkSession(),
            evict: () => {
              send(frame({ retry: FEED_EVICTED_RETRY_MS, comment: "replaced by a newer feed of this account" }));
              close();
            },
          });
          // The client may have gone while we awaited: undo instead of leaking a subscriber or timer.
          if (closed) return unsub();
          unsubscribe = unsub;
          const resolved = await resolveCursor(ownerId, after);
          if (closed) return;
          cursor = resolved.cursor;
          // The id-only frame sets the browser's lastEventId now, so a reconnect before
          // the first event still resumes from here instead of "live from now".
          send(frame({ retry: 3000, comment: "herald feed", id: cursor.toString() }));
          if (resolved.reset) send(frame({ id: cursor.toString(), event: "reset", data: "{}" }));
          heartbeat = setInterval(() => {
            void checkSession().then(() => send(frame({ comment: "hb" })));
          }, heartbeatMs);
          heartbeat.unref?.();
          ready = true;
          await pump();
        } catch (err) {
          console.error("[feed] could not open the feed", err);
          close();
        }
      },
      cancel() {
        closed = true;
        unsubscribe?.();
        if (heartbeat) clearInterval(heartbeat);
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
  );
}
