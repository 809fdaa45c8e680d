import { env } from "@/lib/config/env";
import { getDb } from "@/lib/db/client";
import { AP_STREAM_MODES, type ApMessage, type ApStreamMode } from "@/lib/contract/ap";
import { isTerminalStatus } from "@/lib/contract/task";
import { ApiError } from "@/lib/errors/api-error";
import { watchAccount } from "@/lib/events/feed";
import { enc, frame } from "@/lib/events/sse";
import { log } from "@/lib/util/log";
import { loadRun } from "./get-run";
import { stateAt, threadSteps } from "./get-thread-state";
import { apMessage } from "./project";
import { runLogPage, type RunLogRow } from "./sql";

/**
 * `runs.stream` / `runs.joinStream` as the LangGraph API serves them: SSE whose
 * frames are `metadata` ({run_id, attempt}) first, then the requested modes, and
 * the end of the response when the run ends (an `error` frame first when it
 * failed). Everything is read from the account's event log (rows with this run's
 * task), never from memory, so any web process can serve a join, a replay and a
 * resume alike. The feed's hub (lib/events/feed.ts) wakes a waiting stream: one
 * LISTEN connection per web process serves the feeds and these streams.
 *
 * Ids are `<event seq>-<n>` (the n-th frame made from that log event; `0-n` for
 * the opening frames): `Last-Event-ID` resumes just after the frame it names.
 *
 *   log event                           frames
 *   (opening)                           metadata; values (the state with the run's input)
 *   message.created progress            custom {type:"progress",text,step}; updates {research:{progress}}
 *   message.created body (final)        messages [chunk, meta]; updates {research:{messages:[ai]}}; values
 *   message.created terminal            error {error, message} when failed or timed out; then the end
 */

export const AP_STREAM_HEARTBEAT_MS = 15_000;
/** Open streams per account in one web process: each one holds a response and reads on every wake-up. */
export const MAX_STREAMS_PER_ACCOUNT = 10;
const PAGE = 200;
const STREAM_HIGH_WATER = 64 * 1024;
const open = new Map<string, number>();

export function streamModes(raw: string | string[] | null | undefined): ApStreamMode[] {
  const list = raw == null ? ["values"] : Array.isArray(raw) ? raw : [raw];
  const modes = AP_STREAM_MODES.filter((m) => list.includes(m));
  return modes.length ? modes : ["values"];
}

/** A stream's wake-ups from the feed's hub: one that arrives while the stream reads is kept for its next wait. */
class Wakeups {
  private woken = false;
  private waiter: (() => void) | null = null;

  readonly wake = (): void => {
    this.woken = true;
    this.waiter?.();
  };

  /** Forgets the wake-ups a read about to start covers. */
  reset(): void {
    this.woken = false;
  }

  /** Until the next wake-up (true) or `ms` without one (false). */
  next(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.woken) return resolve(true);
      const timer = setTimeout(() => {
        this.waiter = null;
        resolve(false);
      }, ms);
      this.waiter = () => {
        clearTimeout(timer);
        this.waiter = null;
        resolve(true);
      };
    });
  }
}

interface Cursor {
  seq: bigint;
  n: number;
}

export function parseEventId(raw: string | null): Cursor | null {
  const m = raw ? /^(\d{1,19})-(\d{1,4})$/.exec(raw.trim()) : null;
  return m ? { seq: BigInt(m[1]), n: Number(m[2]) } : null;
}

interface Frame {
  event: string;
  data: unknown;
}

/**
 * The frames for one log event. `valuesAt(id)` is the thread's values at a
 * checkpoint (read from durable rows only when the values mode asks for them).
 */
async function framesOf(
  row: RunLogRow,
  modes: ApStreamMode[],
  runId: string,
  valuesAt: (id: string) => Promise<unknown>,
): Promise<Frame[]> {
  const m = row.payload.message;
  if (row.type !== "message.created" || !m) return [];
  const out: Frame[] = [];
  if (m.kind === "progress") {
    const step = m.meta?.step ?? null;
    if (modes.includes("custom")) out.push({ event: "custom", data: { type: "progress", text: m.content, step } });
    if (modes.includes("updates"))
      out.push({ event: "updates", data: { research: { progress: { text: m.content, step } } } });
  } else if (m.kind === "body" && m.meta && !m.meta.partial && m.publicationId) {
    const ai: ApMessage = apMessage("ai", m.content, m.publicationId);
    if (modes.includes("messages-tuple")) {
      out.push({
        event: "messages",
        data: [
          { ...ai, type: "AIMessageChunk", tool_call_chunks: [] },
          { langgraph_node: "research", run_id: runId, langgraph_step: 1 },
        ],
      });
    }
    if (modes.includes("updates")) out.push({ event: "updates", data: { research: { messages: [ai] } } });
    if (modes.includes("values")) out.push({ event: "values", data: await valuesAt(m.publicationId) });
  } else if (m.kind === "terminal" && m.meta && (m.meta.status === "failed" || m.meta.status === "deadline_exceeded")) {
    out.push({
      event: "error",
      data: {
        error: m.meta.status === "failed" ? (m.meta.errorCode ?? "failed") : "timeout",
        message: m.meta.error ?? m.content,
      },
    });
  }
  return out;
}

/**
 * The SSE response body for one run. `createdRun` is set by create-and-stream:
 * the run was made by this request, so there is nothing to look up first.
 */
export async function openRunStream(
  ownerId: string,
  threadId: string,
  runId: string,
  opts: { modes: ApStreamMode[]; lastEventId: string | null; signal: AbortSignal },
): Promise<ReadableStream<Uint8Array>> {
  // 404 before any byte: a foreign or unknown run is an ordinary JSON error.
  const first = await loadRun(ownerId, threadId, runId);
  const n = open.get(ownerId) ?? 0;
  if (n >= MAX_STREAMS_PER_ACCOUNT)
    throw new ApiError("rate_limited", `At most ${MAX_STREAMS_PER_ACCOUNT} runs can be streamed at once`, undefined, 5);
  open.set(ownerId, n + 1);
  const release = () => {
    const left = (open.get(ownerId) ?? 1) - 1;
    if (left <= 0) open.delete(ownerId);
    else open.set(ownerId, left);
  };
  const { modes, signal } = opts;
  const resume = parseEventId(opts.lastEventId);
  const bufferBytes = env("HERALD_FEED_BUFFER_BYTES");
  // The client went away: the slot and the wait end now, not at the next heartbeat.
  const onAbort = () => close();
  signal.addEventListener("abort", onAbort, { once: true });

  // A later run on the same task (multitask interrupt) streams only what came after it.
  const earlier = await getDb().apRun.count({
    where: { taskId: first.row.taskId, createdAt: { lt: first.row.createdAt } },
  });
  const since = earlier > 0 ? first.row.createdAt : null;

  let closed = false;
  let controllerRef: ReadableStreamDefaultController<Uint8Array> | null = null;
  const wakeups = new Wakeups();
  let unwatch: (() => void) | null = null;
  const end = (how: (c: ReadableStreamDefaultController<Uint8Array>) => void) => {
    if (closed) return;
    closed = true;
    release();
    signal.removeEventListener("abort", onAbort);
    unwatch?.();
    unwatch = null;
    wakeups.wake();
    try {
      if (controllerRef) how(controllerRef);
    } catch {
      /* already closed */
    }
  };
  const close = () => end((c) => c.close());
  const cut = () => {
    log("ap").info({ runId }, "run stream cut: its client is not reading");
    end((c) => c.error(new Error("slow client")));
  };
  const send = (id: string | undefined, f: Frame) => {
    if (closed || !controllerRef) return;
    const c: Cursor | null = id ? parseEventId(id) : null;
    if (resume && c && (c.seq < resume.seq || (c.seq === resume.seq && c.n <= resume.n))) return;
    push(enc.encode(frame({ id, event: f.event, data: JSON.stringify(f.data) })));
  };
  const push = (bytes: Uint8Array) => {
    if (closed || !controllerRef) return;
    controllerRef.enqueue(bytes);
    // A client that does not read is cut, not buffered without bound: an error drops what is queued and ends
    // the response (a close would keep it until read). It resumes with Last-Event-ID.
    if (STREAM_HIGH_WATER - (controllerRef.desiredSize ?? 0) > bufferBytes) cut();
  };

  const valuesAt = async (checkpointId: string) => {
    const steps = await threadSteps(ownerId, threadId);
    const i = steps.findIndex((s) => s.id === checkpointId);
    return stateAt(threadId, steps, i < 0 ? steps.length - 1 : i, first.row.createdAt).values;
  };

  const run = async () => {
    const stopWatching = await watchAccount(ownerId, wakeups.wake);
    if (closed) return stopWatching();
    unwatch = stopWatching;
    send("0-0", { event: "metadata", data: { run_id: runId, attempt: 1 } });
    if (modes.includes("values")) send("0-1", { event: "values", data: await valuesAt(runId) });
    let cursor = 0n;
    for (;;) {
      if (closed) return;
      wakeups.reset();
      // Status before the log: a run seen over has all its events committed by the time they are read.
      const { task, superseded } = await loadRun(ownerId, threadId, runId);
      const over = superseded || isTerminalStatus(task.status) || task.status === "input_required";
      for (;;) {
        const rows = await runLogPage(ownerId, first.row.taskId, cursor, since, PAGE);
        for (const r of rows) {
          const frames = await framesOf(r, modes, runId, valuesAt);
          frames.forEach((f, i) => send(`${r.seq}-${i}`, f));
          cursor = r.seq;
          if (closed) return;
        }
        if (rows.length < PAGE) break;
      }
      if (over) return close();
      const event = await wakeups.next(AP_STREAM_HEARTBEAT_MS);
      if (closed) return;
      if (!event) push(enc.encode(frame({ comment: "heartbeat" })));
    }
  };

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controllerRef = controller;
        run().catch((err) => {
          log("ap").error({ err, runId }, "run stream failed");
          close();
        });
      },
      cancel() {
        close();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: STREAM_HIGH_WATER }),
  );
}

export function sseResponse(body: ReadableStream<Uint8Array>, threadId: string, runId: string): Response {
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
      // Where the run lives (the SDK's onRunCreated) and where to resume (its reconnect with Last-Event-ID).
      "content-location": `/threads/${threadId}/runs/${runId}`,
      location: `/threads/${threadId}/runs/${runId}/stream`,
    },
  });
}
