import { getDb } from "@/lib/db/client";
import type { RunDelta } from "@/lib/api/shapes";
import { DELTAS_CHANNEL, EVENTS_CHANNEL } from "./channels";
import { PgListener } from "./listener";

/**
 * Per-process fan-out for the SSE feed (DESIGN §8). A notification only says
 * "account X has new events"; each stream then reads its own cursor range from
 * the log, so ordering and gap-freedom come from the database, never from the
 * order notifications arrive in.
 */
interface Subscriber {
  wake(): void;
  delta(d: RunDelta): void;
}

class FeedHub {
  private subs = new Map<string, Set<Subscriber>>();
  private listener = new PgListener(
    [EVENTS_CHANNEL, DELTAS_CHANNEL],
    (channel, payload) => this.dispatch(channel, payload),
    () => this.wakeAll(),
    (m) => console.warn(`[feed] ${m}`),
  );

  async subscribe(ownerId: string, sub: Subscriber): Promise<() => void> {
    await this.listener.start();
    let set = this.subs.get(ownerId);
    if (!set) this.subs.set(ownerId, (set = new Set()));
    set.add(sub);
    return () => {
      set.delete(sub);
      if (set.size === 0) this.subs.delete(ownerId);
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
    else if (channel === DELTAS_CHANNEL) {
      const { runId, conversationId, delta, offset } = msg;
      if (typeof runId !== "string" || typeof delta !== "string" || typeof offset !== "number") return;
      for (const s of set) s.delta({ runId, conversationId: conversationId ?? "", delta, offset });
    }
  }

  private wakeAll(): void {
    for (const set of this.subs.values()) for (const s of set) s.wake();
  }
}

const g = globalThis as unknown as { heraldFeedHub?: FeedHub };
const hub = () => (g.heraldFeedHub ??= new FeedHub());

export const FEED_HEARTBEAT_MS = 15_000;
const REPLAY_PAGE = 500;
/** Bytes a slow client may have queued before we drop it; it resumes by cursor. */
export const FEED_BUFFER_BYTES = Number(process.env.HERALD_FEED_BUFFER_BYTES ?? 1_000_000);

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

export function openFeed(ownerId: string, after: bigint | null, signal: AbortSignal): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let cursor = after ?? 0n;
  let pumping = false;
  let again = false;
  let closed = false;
  // Wake-ups can arrive before the cursor is resolved; pumping then would replay from 0.
  let ready = false;
  let unsubscribe: (() => void) | null = null;
  let heartbeat: NodeJS.Timeout | null = null;

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
                const rows = await getDb().event.findMany({
                  where: { ownerId, seq: { gt: cursor } },
                  orderBy: { seq: "asc" },
                  take: REPLAY_PAGE,
                  select: { seq: true, type: true, payload: true },
                });
                for (const r of rows) {
                  if (closed) return;
                  send(frame({ id: r.seq.toString(), event: r.type, data: JSON.stringify(r.payload) }));
                  cursor = r.seq;
                }
                if (rows.length < REPLAY_PAGE) break;
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
          heartbeat = setInterval(() => send(frame({ comment: "hb" })), FEED_HEARTBEAT_MS);
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
