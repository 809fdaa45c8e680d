import { streamText, stepCountIs, type ModelMessage } from "ai";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { publicError } from "@/lib/errors/public";
import { keepLease } from "@/lib/runtime/keep-lease";
import { getDb } from "@/lib/db/client";
import { db, type Executor } from "@/lib/db/kysely";
import { emitEvent, publishDelta, transactionWithEvents } from "@/lib/events/emit";
import { appendMessage } from "@/lib/chat/append-message";
import { titleAfterExchange } from "@/lib/chat/titles";
import { deliveryNote, withDeliveryNote } from "@/lib/chat/delivery-note";
import { toPublicRun } from "@/lib/contract/message";
import { getModel } from "@/lib/agent/model";
import { countedModel, LeaseLostError } from "@/lib/agent/counted-model";
import { resilientModel } from "@/lib/agent/resilient-model";
import { systemPrompt } from "@/lib/agent/prompt";
import { modelToolsEnabled } from "@/lib/agent/provider-profile";
import { taskProjection } from "@/lib/agent/task-projection";
import { agentTools, toolAccessFor } from "@/lib/agent/tools";
import { createFrame, type Frame } from "@/lib/text/frame";
import { NARRATION_EVENT, narrationPrompt } from "@/lib/notify/deliver";
import { parseEventSnapshot, type EventSnapshot } from "@/lib/notify/state";
import {
  addRunUsage,
  countRunModelRequest,
  finishRunGuarded,
  releaseRun,
  renewRunLease,
  runLeaseMs,
  runMaxAttempts,
  type ClaimedRun,
  type RunRow,
} from "@/lib/runs/sql";

const HISTORY_LIMIT = 40;
const DELTA_FLUSH_MS = 40;
const MAX_ERROR_CHARS = 4000;

async function loadTrigger(run: ClaimedRun) {
  if (!run.triggerMessageId) return null;
  return getDb().message.findFirst({
    where: { id: run.triggerMessageId, conversationId: run.conversationId },
    select: { seq: true, kind: true, hidden: true },
  });
}

/**
 * The conversation as the model sees it. A narration prompt is rebuilt from
 * its frozen event with this prompt's frame, so its data carries the nonce the
 * system prompt names.
 */
async function loadHistory(run: ClaimedRun, trigger: { seq: number } | null, frame: Frame): Promise<ModelMessage[]> {
  const rows = await getDb().message.findMany({
    where: {
      conversationId: run.conversationId,
      OR: [
        { hidden: false, kind: { in: ["user", "assistant"] }, ...(trigger ? { seq: { lte: trigger.seq } } : {}) },
        { hidden: true, runId: run.id },
      ],
    },
    orderBy: { seq: "desc" },
    take: HISTORY_LIMIT,
  });
  return rows.reverse().map((m) => {
    if (m.kind === "assistant") return { role: "assistant", content: m.content };
    const event = m.hidden ? narrationEventOf(m.meta) : null;
    return { role: "user", content: event ? narrationPrompt(event, frame) : m.content };
  });
}

/** The frozen event of a hidden narration prompt; null keeps the stored (self-framed) content. */
function narrationEventOf(meta: unknown): EventSnapshot | null {
  const event =
    meta && typeof meta === "object" && !Array.isArray(meta)
      ? (meta as Record<string, unknown>)[NARRATION_EVENT]
      : null;
  return parseEventSnapshot(event);
}

export interface ExecuteOptions {
  /** The model to call instead of `getModel()` (tests capture what the model is sent). */
  model?: LanguageModelV3;
}

export type RunOutcome = "succeeded" | "failed" | "released" | "lost";

/**
 * Executes one claimed run: stream the model's reply (ephemeral deltas on the
 * feed), then store the reply and finish the run in one guarded transaction.
 * `stopping` aborts the work and gives the run back without counting a failure.
 */
export async function executeRun(
  run: ClaimedRun,
  stopping: AbortSignal,
  opts: ExecuteOptions = {},
): Promise<RunOutcome> {
  const token = run.leaseToken;
  const abort = new AbortController();
  const onStop = () => abort.abort(new Error("worker stopping"));
  stopping.addEventListener("abort", onStop, { once: true });
  let lost = false;
  const stopRenewing = keepLease(
    runLeaseMs(),
    () => renewRunLease(run.id, token),
    () => {
      lost = true;
      abort.abort(new LeaseLostError());
    },
  );
  const reply = deltaPublisher(run);

  try {
    const maxAttempts = runMaxAttempts();
    if (run.attempts > maxAttempts) return await fail(run, `gave up after ${maxAttempts} attempts`);
    await emitRunUpdated(db(), run);
    const broken = await readReply(await startReply(run, abort.signal, opts), reply, abort.signal);
    if (abort.signal.aborted) throw abort.signal.reason;
    if (broken) {
      // A stream cut after the user saw text keeps that text as the reply: asking again would repeat it.
      if (!reply.text.trim() || broken instanceof LeaseLostError) throw broken;
      publicError(broken, `runs ${run.id}: stream broke, partial reply kept`);
    }
    await reply.finish();
    return (await storeReply(run, reply.text.trim())) ? "succeeded" : "lost";
  } catch (err) {
    reply.cancel();
    if (stopping.aborted && !lost) return (await releaseRun(run.id, token)) ? "released" : "lost";
    if (lost || err instanceof LeaseLostError) return "lost";
    return await fail(run, publicError(err, `runs ${run.id}`));
  } finally {
    stopRenewing();
    stopping.removeEventListener("abort", onStop);
  }
}

/** The reply as it streams, sent on the feed in batches as ephemeral deltas (the stored message is what counts). */
function deltaPublisher(run: ClaimedRun) {
  let streamed = "";
  let sent = 0;
  let flushTimer: NodeJS.Timeout | null = null;
  const flush = async () => {
    flushTimer = null;
    if (sent === streamed.length) return;
    const delta = streamed.slice(sent);
    const offset = sent;
    sent = streamed.length;
    await publishDelta(run.ownerId, { runId: run.id, conversationId: run.conversationId, delta, offset }).catch(
      () => {},
    );
  };
  return {
    get text() {
      return streamed;
    },
    append(text: string) {
      streamed += text;
      flushTimer ??= setTimeout(() => void flush(), DELTA_FLUSH_MS);
    },
    async finish() {
      if (flushTimer) clearTimeout(flushTimer);
      await flush();
    },
    cancel() {
      if (flushTimer) clearTimeout(flushTimer);
    },
  };
}

/** The model's reply to the conversation so far, streaming: the prompt, the history, the tools this run may use. */
async function startReply(run: ClaimedRun, signal: AbortSignal, opts: ExecuteOptions) {
  // One frame per prompt: every untrusted block below carries its nonce, and the system prompt names it.
  const frame = createFrame();
  const trigger = await loadTrigger(run);
  // Only a turn the user wrote gets tools that change tasks; a narration run can only look them up.
  const access = toolAccessFor(run, trigger);
  const messages = await loadHistory(run, trigger, frame);
  // Interactive policy: short in-place retries (Retry-After, backoff), a silence timeout, tokens per answered request.
  const model = resilientModel(
    countedModel(opts.model ?? getModel(), () => countRunModelRequest(run.id, run.leaseToken)),
    {
      mode: "interactive",
      onUsage: (u) => addRunUsage(run.id, u),
    },
  );
  // A server without a tool-call parser refuses every request that carries tools, "Hello" included.
  const withTools = modelToolsEnabled();
  const tasks = await taskProjection(run.ownerId, run.conversationId, frame);
  const reader = await getDb().user.findUnique({ where: { id: run.ownerId }, select: { timeZone: true } });
  return streamText({
    model,
    system: systemPrompt(new Date(), frame, {
      readOnly: access === "read-only",
      tasks,
      noTools: !withTools,
      timeZone: reader?.timeZone,
    }),
    messages,
    tools: withTools
      ? agentTools({ ownerId: run.ownerId, conversationId: run.conversationId, runId: run.id, frame }, access)
      : undefined,
    stopWhen: stepCountIs(5),
    abortSignal: signal,
    // Retries are the resilient model's (one policy for every call); the SDK's own would ignore Retry-After.
    maxRetries: 0,
  });
}

/** Reads the stream into `reply`; what broke it (an error or the abort), or null when it ended. */
async function readReply(
  result: ReturnType<typeof streamText>,
  reply: ReturnType<typeof deltaPublisher>,
  signal: AbortSignal,
): Promise<unknown> {
  // fullStream rather than textStream: errors and aborts arrive as parts, not throws.
  let stepEnded = false;
  try {
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") {
        // Text before a tool call and the text after it are two paragraphs, not one glued sentence.
        if (stepEnded && reply.text.trim() && !/\s$/.test(reply.text)) reply.append("\n\n");
        stepEnded = false;
        reply.append(part.text);
      } else if (part.type === "finish-step") stepEnded = true;
      else if (part.type === "error") throw part.error;
      else if (part.type === "abort") throw signal.reason ?? new Error("aborted");
    }
    return null;
  } catch (err) {
    return err;
  }
}

/** The reply stored and the run finished in one transaction, under the run's lease; false when the lease was gone. */
function storeReply(run: ClaimedRun, text: string): Promise<boolean> {
  return transactionWithEvents(async (tx) => {
    const done = await finishRunGuarded(tx, run.id, run.leaseToken, "succeeded", null);
    if (!done) return false;
    await appendMessage(tx, {
      conversationId: run.conversationId,
      ownerId: run.ownerId,
      kind: "assistant",
      // A deadline with no task to keep it, or one too short to meet, is said under the reply.
      content: withDeliveryNote(text || "…", await deliveryNote(tx, run)),
      runId: run.id,
    });
    if (run.kind === "chat") await titleAfterExchange(tx, run.ownerId, run.conversationId, run.id);
    await emitRunUpdated(tx, done, wakeOnEnd(run));
    return true;
  });
}

/** A narration's end decides its notice's delivery: the notify loop is woken by the same statement as the run's event. */
const wakeOnEnd = (run: ClaimedRun) => (run.kind === "notification" ? ["notify"] : []);

/** The run's public state on the feed, on `on`'s transaction or alone (one statement: two round trips fewer a turn). */
function emitRunUpdated(on: Executor, run: RunRow, wake: readonly string[] = []): Promise<void> {
  return emitEvent(
    on,
    run.ownerId,
    { type: "run.updated", data: { run: toPublicRun(run) } },
    { conversationId: run.conversationId },
    wake,
  );
}

async function fail(run: ClaimedRun, message: string): Promise<RunOutcome> {
  const error = message.slice(0, MAX_ERROR_CHARS);
  const ok = await transactionWithEvents(async (tx) => {
    const done = await finishRunGuarded(tx, run.id, run.leaseToken, "failed", error);
    if (!done) return false;
    await emitRunUpdated(tx, done, wakeOnEnd(run));
    return true;
  });
  return ok ? "failed" : "lost";
}
