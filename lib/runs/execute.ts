import { streamText, stepCountIs, type ModelMessage } from "ai";
import { getDb } from "@/lib/db/client";
import { emitEvent, publishDelta, wakeWorkers } from "@/lib/events/emit";
import { appendMessage } from "@/lib/chat/append-message";
import { toPublicRun } from "@/lib/chat/public";
import { getModel } from "@/lib/agent/model";
import { countedModel, LeaseLostError } from "@/lib/agent/counted-model";
import { systemPrompt } from "@/lib/agent/prompt";
import { taskProjection } from "@/lib/agent/task-projection";
import { agentTools } from "@/lib/agent/tools";
import {
  countRunModelRequest,
  finishRunGuarded,
  releaseRun,
  renewRunLease,
  RUN_LEASE_MS,
  RUN_MAX_ATTEMPTS,
  type ClaimedRun,
} from "./sql";

const HISTORY_LIMIT = 40;
const DELTA_FLUSH_MS = 40;
const MAX_ERROR_CHARS = 4000;

async function loadHistory(run: ClaimedRun): Promise<ModelMessage[]> {
  const db = getDb();
  const trigger = run.triggerMessageId
    ? await db.message.findUnique({ where: { id: run.triggerMessageId }, select: { seq: true } })
    : null;
  const rows = await db.message.findMany({
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
  return rows.reverse().map((m) => ({ role: m.kind === "assistant" ? "assistant" : "user", content: m.content }));
}

export type RunOutcome = "succeeded" | "failed" | "released" | "lost";

/**
 * Executes one claimed run: stream the model's reply (ephemeral deltas on the
 * feed), then store the reply and finish the run in one guarded transaction.
 * `stopping` aborts the work and gives the run back without counting a failure.
 */
export async function executeRun(run: ClaimedRun, stopping: AbortSignal): Promise<RunOutcome> {
  const token = run.leaseToken;
  const abort = new AbortController();
  const onStop = () => abort.abort(new Error("worker stopping"));
  stopping.addEventListener("abort", onStop, { once: true });
  let lost = false;
  const renew = setInterval(async () => {
    if (!(await renewRunLease(run.id, token).catch(() => false))) {
      lost = true;
      abort.abort(new LeaseLostError());
    }
  }, RUN_LEASE_MS / 3);

  let streamed = "";
  let sent = 0;
  let flushTimer: NodeJS.Timeout | null = null;
  const flush = async () => {
    flushTimer = null;
    if (sent === streamed.length) return;
    const delta = streamed.slice(sent);
    const offset = sent;
    sent = streamed.length;
    await publishDelta(run.ownerId, { runId: run.id, conversationId: run.conversationId, delta, offset }).catch(() => {});
  };

  try {
    if (run.attempts > RUN_MAX_ATTEMPTS) return await fail(run, `gave up after ${RUN_MAX_ATTEMPTS} attempts`);
    await emitRunUpdated(run);
    const messages = await loadHistory(run);
    const model = countedModel(getModel(), () => countRunModelRequest(run.id, token));
    const result = streamText({
      model,
      system: `${systemPrompt(new Date())}\n\n${await taskProjection(run.ownerId, run.conversationId)}`,
      messages,
      tools: agentTools({ ownerId: run.ownerId, conversationId: run.conversationId, runId: run.id }),
      stopWhen: stepCountIs(5),
      abortSignal: abort.signal,
      maxRetries: 1,
    });
    // fullStream rather than textStream: errors and aborts arrive as parts, not throws.
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") {
        streamed += part.text;
        flushTimer ??= setTimeout(() => void flush(), DELTA_FLUSH_MS);
      } else if (part.type === "error") throw part.error;
      else if (part.type === "abort") throw abort.signal.reason ?? new Error("aborted");
    }
    if (abort.signal.aborted) throw abort.signal.reason;
    if (flushTimer) clearTimeout(flushTimer);
    await flush();
    const text = streamed.trim();
    const stored = await getDb().$transaction(async (tx) => {
      const done = await finishRunGuarded(tx, run.id, token, "succeeded", null);
      if (!done) return false;
      await appendMessage(tx, {
        conversationId: run.conversationId,
        ownerId: run.ownerId,
        kind: "assistant",
        content: text || "…",
        runId: run.id,
      });
      await emitEvent(tx, run.ownerId, { type: "run.updated", data: { run: toPublicRun(done) } }, { conversationId: run.conversationId });
      if (run.kind === "notification") await wakeWorkers(tx, "notify");
      return true;
    });
    return stored ? "succeeded" : "lost";
  } catch (err) {
    if (flushTimer) clearTimeout(flushTimer);
    if (stopping.aborted && !lost) return (await releaseRun(run.id, token)) ? "released" : "lost";
    if (lost || err instanceof LeaseLostError) return "lost";
    return await fail(run, (err as Error).message ?? String(err));
  } finally {
    clearInterval(renew);
    stopping.removeEventListener("abort", onStop);
  }
}

async function emitRunUpdated(run: ClaimedRun): Promise<void> {
  await getDb().$transaction(async (tx) => {
    await emitEvent(tx, run.ownerId, { type: "run.updated", data: { run: toPublicRun(run) } }, { conversationId: run.conversationId });
  });
}

async function fail(run: ClaimedRun, message: string): Promise<RunOutcome> {
  const error = message.slice(0, MAX_ERROR_CHARS);
  const ok = await getDb().$transaction(async (tx) => {
    const done = await finishRunGuarded(tx, run.id, run.leaseToken, "failed", error);
    if (!done) return false;
    await emitEvent(tx, run.ownerId, { type: "run.updated", data: { run: toPublicRun(done) } }, { conversationId: run.conversationId });
    if (run.kind === "notification") await wakeWorkers(tx, "notify");
    return true;
  });
  return ok ? "failed" : "lost";
}
