import type { Client } from "@langchain/langgraph-sdk";
import { neutralizeUntrusted } from "@/lib/text/frame";

/**
 * Live progress of a remote run, relayed from the Agent Protocol stream
 * (`GET /threads/{tid}/runs/{rid}/stream`, `runs.joinStream`) when the remote
 * serves one. A step watches the stream for a short window and keeps the
 * newest line the graph wrote on its `custom` stream mode (`config.writer`:
 * a string, or an object with `progress`, `message`, `status` or `text`);
 * the driver turns at most one line per interval into a progress message.
 * Remote text is untrusted: bounded, NFKC-normalised and stripped of anything
 * that looks like Herald's framing markers before anyone sees it.
 */
const RELAY_WINDOW_MS = 3_000;
/** At most one relayed progress message per task this often. */
export const RELAY_MIN_INTERVAL_MS = 10_000;
const MAX_LINE_CHARS = 500;
/** Events read per window: a chatty graph cannot keep a worker busy parsing. */
const MAX_EVENTS = 200;

export type Relay = { line: string | null; ended: boolean } | "unsupported";

/** The text a custom stream event carries, if any. */
export function relayLine(data: unknown): string | null {
  const d = data as Record<string, unknown> | null;
  const raw =
    typeof data === "string"
      ? data
      : ["progress", "message", "status", "text"].map((k) => d?.[k]).find((v) => typeof v === "string");
  if (typeof raw !== "string") return null;
  const text = neutralizeUntrusted(raw.replace(/\s+/g, " ").trim()).slice(0, MAX_LINE_CHARS);
  return text || null;
}

function httpStatus(err: unknown): number | null {
  const s = (err as { status?: unknown } | null)?.status;
  return typeof s === "number" ? s : null;
}

/**
 * Watches the run's stream for up to `windowMs`. "unsupported": the remote
 * has no stream route (the driver polls from now on). A broken stream is not
 * an error of the task: the poll that follows says where the run is.
 */
export async function relayRun(
  client: Client,
  threadId: string,
  runId: string,
  signal: AbortSignal,
  windowMs = RELAY_WINDOW_MS,
): Promise<Relay> {
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => stop.abort(new Error("relay window over")), windowMs);
  let line: string | null = null;
  let events = 0;
  try {
    for await (const ev of client.runs.joinStream(threadId, runId, { signal: stop.signal, streamMode: ["custom"] })) {
      if (ev.event === "error") break;
      if (ev.event === "custom") line = relayLine(ev.data) ?? line;
      if (++events >= MAX_EVENTS) break;
    }
    return { line, ended: !stop.signal.aborted && events < MAX_EVENTS };
  } catch (err) {
    if (signal.aborted) throw err;
    const s = httpStatus(err);
    if (s === 404 || s === 405 || s === 501) return "unsupported";
    return { line, ended: false };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
    stop.abort(new Error("relay done"));
  }
}
