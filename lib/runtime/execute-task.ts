import { isUniqueViolation } from "@/lib/db/errors";
import { getDb } from "@/lib/db/client";
import type { Tx } from "@/lib/db/kysely";
import { transactionNow } from "@/lib/runtime/sql";
import type { Task } from "@/lib/db/generated/client.ts";
import { appendMessage } from "@/lib/chat/append-message";
import { getModel } from "@/lib/agent/model";
import { countedModel, LeaseLostError } from "@/lib/agent/counted-model";
import { resilientModel } from "@/lib/agent/resilient-model";
import { backgroundWaitMs, ProviderWaitError } from "@/lib/agent/retry";
import type { TokenUsage } from "@/lib/agent/usage";
import { env } from "@/lib/config/env";
import { keepLease } from "@/lib/runtime/keep-lease";
import { log } from "@/lib/util/log";
import { driverFor } from "@/lib/drivers/registry";
import { publicError } from "@/lib/errors/public";
import { TRACKING_DEGRADED_AFTER, type Driver, type ProgressReply, type StepOutcome } from "@/lib/drivers/types";
import { DriverProtocolError } from "@/lib/errors/protocol";
import { recordEventAndAnnounce } from "@/lib/notify/event";
import { STOPPED_IN_OVERTIME, syncNotices } from "@/lib/delivery/sync-notices";
import { budgetExceeded, stopAtDeadline } from "@/lib/runtime/due-loop";
import type { ProgressMessageMeta, TerminalMessageMeta } from "@/lib/contract/shapes";
import { admitModelProgress, type ProgressWindow } from "@/lib/tasks/model-progress";
import { emitTaskById, emitTaskUpdated } from "@/lib/tasks/emit-task";
import { publicFailure, type TerminalStatus } from "@/lib/contract/task";
import {
  backoffMs,
  commitPoll,
  addTaskUsage,
  countTaskModelRequest,
  deferExecution,
  deferForProvider,
  providerWaitedMs,
  lockExecutionGuarded,
  markStarted,
  markTerminal,
  mergeDriverState,
  resumeAfterAnswer,
  setLatestPublication,
  setProgress,
  setStepCount,
  storeHandle,
  releaseExecution,
  renewExecutionLease,
  taskLeaseMs,
  TASK_MAX_CONSECUTIVE_ERRORS,
  type LeasedTask,
} from "@/lib/tasks/sql";
import { insertPublication, insertTaskStep } from "@/lib/tasks/step-output-sql";
import { transactionWithEvents, type EventTx } from "@/lib/events/emit";
import { inputResponseOf, pendingUpdatesOf } from "@/lib/tasks/columns";
import { countTaskSearch, recordSource, researchContext } from "@/lib/tasks/sources";
import { limits } from "@/lib/limits/config";
import { PAGE_PROMPT_CHARS } from "@/lib/drivers/research-prompt";

const MAX_ERROR_CHARS = 4000;

/** Workers abort the in-flight step of a task the moment its cancel is requested. */
const inFlight = new Map<string, AbortController>();
export function abortTaskStep(taskId: string): void {
  inFlight.get(taskId)?.abort(new LeaseLostError());
}

export type ExecOutcome = "submitted" | "stepped" | "deferred" | "finished" | "failed" | "retry" | "released" | "lost";

/**
 * One claim = one unit of work: submit the launch intent, or run the next
 * research step. The result is committed under the execution lease guard in one
 * transaction with its checkpoint, progress, publication and feed events.
 */
export async function executeTask(task: LeasedTask, stopping: AbortSignal): Promise<ExecOutcome> {
  const outcome = await executeClaim(task, stopping);
  // Expected after a cancel or a crash elsewhere; many in a row without either mean leases too short for the machine.
  if (outcome === "lost") log("tasks").info({ taskId: task.id }, "execution lease lost: result dropped");
  return outcome;
}

async function executeClaim(task: LeasedTask, stopping: AbortSignal): Promise<ExecOutcome> {
  const claim = holdClaim(task, stopping);
  const driver = driverFor(task.driver);
  try {
    // Not a protocol error: during a rolling change of HERALD_REMOTE_AGENTS or MCP servers another worker
    // may know the driver. Released with backoff like any transient error; five in a row fail the task.
    if (!driver) throw new Error(`no driver registered as "${task.driver}" in this worker`);
    return await dispatch(task, driver, claim.signal);
  } catch (err) {
    return await settleFailure(task, driver, err, stopping, claim.signal);
  } finally {
    claim.release();
  }
}

/**
 * The claim's own abort signal, held for the length of the work: it fires when
 * the worker stops, when the lease cannot be renewed, or when a cancel is
 * requested (`abortTaskStep`). The lease is renewed in the background meanwhile.
 */
function holdClaim(task: LeasedTask, stopping: AbortSignal): { signal: AbortSignal; release(): void } {
  const abort = new AbortController();
  inFlight.set(task.id, abort);
  const onStop = () => abort.abort(new Error("worker stopping"));
  stopping.addEventListener("abort", onStop, { once: true });
  const stopRenewing = keepLease(
    taskLeaseMs(),
    () => renewExecutionLease(task.id, task.leaseToken),
    () => abort.abort(new LeaseLostError()),
  );
  return {
    signal: abort.signal,
    release() {
      stopRenewing();
      inFlight.delete(task.id);
      stopping.removeEventListener("abort", onStop);
    },
  };
}

/** Which unit of work this claim is: the submit, the answer, or the next step. */
async function dispatch(task: LeasedTask, driver: Driver, signal: AbortSignal): Promise<ExecOutcome> {
  const token = task.leaseToken;
  if (task.status === "submitted") return submit(task, token, signal);
  if (!driver.reportsStart) await markRunning(task, token);
  if (task.dueEvaluatedAt && (await overtimeSpent(task, token))) return "lost";
  if (task.inputResponse !== null && task.status === "input_required") return answer(task, token, signal);
  return runStep(task, driver, signal);
}

/** One driver step with its counted model and progress writers, then its commit (or its deferral). */
async function runStep(task: LeasedTask, driver: Driver, signal: AbortSignal): Promise<ExecOutcome> {
  const token = task.leaseToken;
  const steps = await getDb().taskStep.findMany({ where: { taskId: task.id }, orderBy: { index: "asc" } });
  // Tokens go to the task as each answer arrives (a step that fails later still spent them), and to the step's row.
  const stepUsage = { inputTokens: 0, outputTokens: 0 };
  const onUsage = async (u: TokenUsage) => {
    stepUsage.inputTokens += u.inputTokens;
    stepUsage.outputTokens += u.outputTokens;
    await addTaskUsage(task.id, u);
  };
  const model = resilientModel(
    countedModel(getModel(), () => countTaskModelRequest(task.id, token)),
    { mode: "background", onUsage },
  );
  const reportProgress = modelProgressWriter(task, token, steps);
  const research = driver.readsSources ? await researchInputs(task, token, steps) : {};
  const outcome = await driver.step({
    task,
    pendingUpdates: pendingUpdatesOf(task),
    steps,
    model,
    signal,
    reportProgress,
    ...research,
  });
  if (outcome.defer) {
    const { ms, driverState } = outcome.defer;
    return (await deferExecution(task.id, token, ms, driverState)) ? "deferred" : "lost";
  }
  return commitStep(task, token, outcome, stepUsage);
}

/**
 * What a failed claim becomes: released untouched (the worker is stopping),
 * dropped (the lease is gone), deferred (the model provider is down), failed
 * (a protocol error, or the driver's error budget spent) or retried with backoff.
 */
async function settleFailure(
  task: LeasedTask,
  driver: Driver | null,
  err: unknown,
  stopping: AbortSignal,
  signal: AbortSignal,
): Promise<ExecOutcome> {
  const token = task.leaseToken;
  if (stopping.aborted && !(err instanceof LeaseLostError && !signal.aborted)) {
    return (await releaseExecution(task.id, token, null, 0, false)) ? "released" : "lost";
  }
  if (err instanceof LeaseLostError || (signal.aborted && signal.reason instanceof LeaseLostError)) return "lost";
  if (err instanceof ProviderWaitError) return waitForProvider(task, token, err);
  const message = publicError(err, `tasks ${task.id}`);
  const budget = driver?.maxConsecutiveErrors ?? TASK_MAX_CONSECUTIVE_ERRORS;
  if (err instanceof DriverProtocolError || task.consecutiveErrors + 1 >= budget) {
    return (await finish(task, token, "failed", message)) ? "failed" : "lost";
  }
  await releaseExecution(task.id, token, message, backoffMs(task.consecutiveErrors), true);
  // Crossing the threshold is an event of its own: the user hears tracking is degraded.
  if (task.consecutiveErrors + 1 === TRACKING_DEGRADED_AFTER) {
    await transactionWithEvents(async (tx) => {
      await recordEventAndAnnounce(tx, task.id);
    });
  }
  return "retry";
}

/** Launch intent → driver handle, persisted before the task counts as queued (docs/architecture.md#drivers). */
async function submit(task: LeasedTask, token: string, signal: AbortSignal): Promise<ExecOutcome> {
  const driver = driverFor(task.driver)!;
  const handle = await driver.submit(task, signal);
  try {
    const ok = await transactionWithEvents(async (tx) => {
      const stored = await storeHandle(tx, task.id, token, handle.remoteRef, handle.driverData ?? {});
      if (stored) await emitTaskUpdated(tx, stored);
      return stored !== null;
    });
    // The row does not carry the handle (that write is what failed): hand it over explicitly.
    if (!ok) await compensate({ ...task, remoteRef: handle.remoteRef }, signal);
    return ok ? "submitted" : "lost";
  } catch (err) {
    // Another row already owns this remote handle: cancelling would kill a tracked task.
    const duplicate = isUniqueViolation(err);
    if (!duplicate) await compensate({ ...task, remoteRef: handle.remoteRef }, signal);
    throw err;
  }
}

/** Best effort; a compensation failure is logged and never hides the original error. */
async function compensate(task: Task, signal: AbortSignal): Promise<void> {
  try {
    await driverFor(task.driver)!.cancel(task, signal);
  } catch (err) {
    // The original error is the caller's to report; this line is about the compensation only.
    log("tasks").error({ taskId: task.id, err }, "could not cancel untracked work");
  }
}

/** Past a missed deadline the research may go on only within its budget. */
async function overtimeSpent(task: LeasedTask, token: string): Promise<boolean> {
  return transactionWithEvents(async (tx) => {
    const now = await transactionNow(tx);
    const row = await lockExecutionGuarded(tx, task.id, token);
    if (!row || (row.allowOvertime && !budgetExceeded(row, now))) return false;
    await stopAtDeadline(tx, row, STOPPED_IN_OVERTIME);
    return true;
  });
}

async function markRunning(task: LeasedTask, token: string): Promise<void> {
  if (task.status === "running") return;
  await transactionWithEvents(async (tx) => {
    const started = await markStarted(tx, task.id, token);
    if (started) await emitTaskUpdated(tx, started);
  });
}

/** A step count the progress bar can show: whole, 0 ≤ done ≤ total ≤ 10,000; anything else is dropped. */
function countOf(c: StepOutcome["count"]): StepOutcome["count"] {
  if (!c) return undefined;
  const { done, total } = c;
  if (!Number.isInteger(done) || !Number.isInteger(total) || done < 0 || total < 1 || done > total || total > 10_000)
    return undefined;
  return { done, total };
}

/** Bounds what a driver may say about the remote (one normalisation boundary: docs/architecture.md#drivers). */
export function normalizeOutcome(o: StepOutcome): StepOutcome {
  const pollAfterMs = o.pollAfterMs === undefined ? undefined : Number(o.pollAfterMs);
  if (pollAfterMs !== undefined && !(Number.isFinite(pollAfterMs) && pollAfterMs > 0)) {
    throw new DriverProtocolError(`pollAfter must be finite and positive, got ${String(o.pollAfterMs)}`);
  }
  if (o.status === "input_required" && (o.inputRequest === undefined || o.inputRequest === null)) {
    throw new DriverProtocolError("input_required without a request");
  }
  let inputRequest = o.inputRequest;
  if (inputRequest !== undefined) {
    const json = JSON.stringify(inputRequest);
    if (json === undefined || Buffer.byteLength(json) > 64 * 1024)
      throw new DriverProtocolError("inputRequest is not JSON within 64 KiB");
    inputRequest = JSON.parse(json);
  }
  return {
    ...o,
    inputRequest,
    pollAfterMs: pollAfterMs === undefined ? undefined : Math.min(pollAfterMs, 86_400_000),
    error: o.error?.slice(0, MAX_ERROR_CHARS),
    count: countOf(o.count),
  };
}

/**
 * The model provider failed in a way worth retrying: the step is deferred (no
 * lease held while waiting) and the task says it is waiting for the provider,
 * until the wait measured on the database clock passes its budget.
 */
async function waitForProvider(task: LeasedTask, token: string, err: ProviderWaitError): Promise<ExecOutcome> {
  const message = publicError(err, `tasks ${task.id}: step waits for the model provider`);
  const budget = env("HERALD_MODEL_RETRY_BACKGROUND_MS");
  return transactionWithEvents(async (tx) => {
    if (!(await lockExecutionGuarded(tx, task.id, token))) return "lost";
    const waited = await providerWaitedMs(tx, task.id);
    if (waited >= budget) return (await terminal(tx, task.id, "failed", message)) ? "failed" : "lost";
    // The last try lands at the end of the budget, not after it.
    const wait = Math.min(backgroundWaitMs(waited, err.retryAfterMs), Math.max(budget - waited, 50));
    if (await deferForProvider(tx, task.id, wait)) await emitTaskById(tx, task.id);
    return "deferred";
  });
}

async function commitStep(
  task: LeasedTask,
  token: string,
  raw: StepOutcome,
  usage = { inputTokens: 0, outputTokens: 0 },
): Promise<ExecOutcome> {
  const outcome = normalizeOutcome(raw);
  return transactionWithEvents(async (tx) => {
    const row = await lockExecutionGuarded(tx, task.id, token);
    if (!row) return "lost";
    // A driver that reports its start leaves the task queued until the remote runs it.
    if (row.status === "queued" && outcome.status !== "queued") await markStarted(tx, row.id, token);
    const { step } = outcome;
    if (step) {
      // A second writer of the same step (a re-claim that raced) inserts nothing.
      if (!(await insertTaskStep(tx, task.id, step, usage))) return "lost";
    }
    for (const page of outcome.sources ?? []) {
      // The driver numbered its pages after the sources it was handed; under this lock nobody else numbers any.
      const { n, inserted } = await recordSource(tx, row.id, row.ownerId, page);
      if (!inserted || n !== page.n)
        throw new Error(`source ${page.n} of task ${row.id} would be numbered ${n}: step dropped, read again`);
    }
    const base = { conversationId: row.conversationId, ownerId: row.ownerId, taskId: row.id };
    if (outcome.count) await setStepCount(tx, row.id, outcome.count.done, outcome.count.total);
    if (outcome.progress) {
      await appendMessage(tx, {
        ...base,
        kind: "progress",
        content: outcome.progress,
        meta: { step: step?.index ?? null, title: row.title },
      });
      await setProgress(tx, row.id, outcome.progress);
    }
    if (outcome.publish) await publish(tx, row, outcome.publish);
    // The last step's bookkeeping (searches made, pages read) stays with the finished task too.
    if (outcome.finished && outcome.driverState) await mergeDriverState(tx, row.id, outcome.driverState);
    if (outcome.finished) {
      await terminal(tx, row.id, "succeeded", null);
      return "finished";
    }
    if (outcome.status === "failed" || outcome.status === "cancelled") {
      // A remote's own words can carry its hosts or body: they go to the log only.
      await terminal(
        tx,
        row.id,
        outcome.status,
        outcome.error ? publicError(outcome.error, `tasks ${row.id}`, "remote_failed") : null,
      );
      return outcome.status === "failed" ? "failed" : "finished";
    }
    const pending = pendingUpdatesOf(row);
    await commitPoll(tx, row.id, {
      waiting: outcome.status === "input_required",
      inputRequest: outcome.inputRequest ?? null,
      delayMs: outcome.pollAfterMs ?? 0,
      remainingUpdates: pending.slice(outcome.consumedUpdates ?? 0),
      driverState: outcome.driverState,
    });
    // input_required is an event; so is recovering from degraded tracking (the event goes away).
    await recordEventAndAnnounce(tx, row.id);
    return "stepped";
  });
}

/**
 * The step's `reportProgress`: admits a line the model proposed (bounds in
 * lib/tasks/model-progress.ts) and commits it at once as a `progress`
 * message, guarded by the execution lease like every other write of the step.
 */
function modelProgressWriter(task: LeasedTask, token: string, steps: { index: number }[]) {
  const window: ProgressWindow = { admitted: [], lastAt: null };
  const step = steps.length === 0 ? 0 : Math.max(...steps.map((s) => s.index)) + 1;
  return async (raw: string): Promise<ProgressReply> => {
    const admission = admitModelProgress(raw, window, Date.now());
    if (!admission.ok) return admission.reason;
    window.admitted.push(admission.text);
    window.lastAt = Date.now();
    const written = await transactionWithEvents(async (tx) => {
      if (!(await lockExecutionGuarded(tx, task.id, token))) return false;
      await appendMessage(tx, {
        conversationId: task.conversationId,
        ownerId: task.ownerId,
        taskId: task.id,
        kind: "progress",
        content: admission.text,
        meta: { step, title: task.title, source: "model" } satisfies ProgressMessageMeta,
      });
      await emitTaskUpdated(tx, await setProgress(tx, task.id, admission.text));
      return true;
    });
    return written ? "shown" : "lost";
  };
}

/** What a step of a driver that reads sources is handed besides the common context (one query for both figures). */
async function researchInputs(task: LeasedTask, token: string, steps: { index: number }[]) {
  const { sources, pagesLastHour } = await researchContext(task.id, task.ownerId, PAGE_PROMPT_CHARS);
  return {
    sources,
    accountPagesLeft: Math.max(0, limits().pagesPerHour - pagesLastHour),
    announce: hostProgressWriter(task, token, steps),
    countSearch: () => countTaskSearch(task.id, token, env("HERALD_RESEARCH_MAX_SEARCHES")),
  };
}

/**
 * The step's `announce`: a progress line worded by the host ("Searching the web
 * for …"), committed at once under the execution lease guard. A step says few
 * of them (a search, a batch of pages), so no admission bounds apply.
 */
function hostProgressWriter(task: LeasedTask, token: string, steps: { index: number }[]) {
  const step = steps.length === 0 ? 0 : Math.max(...steps.map((s) => s.index)) + 1;
  return async (text: string): Promise<void> => {
    await transactionWithEvents(async (tx) => {
      if (!(await lockExecutionGuarded(tx, task.id, token))) return;
      await appendMessage(tx, {
        conversationId: task.conversationId,
        ownerId: task.ownerId,
        taskId: task.id,
        kind: "progress",
        content: text,
        meta: { step, title: task.title } satisfies ProgressMessageMeta,
      });
      await emitTaskUpdated(tx, await setProgress(tx, task.id, text));
    });
  };
}

/** Hands the stored answer to the driver, then polls again at once. */
async function answer(task: LeasedTask, token: string, signal: AbortSignal): Promise<ExecOutcome> {
  const driver = driverFor(task.driver)!;
  if (!driver.answer) throw new DriverProtocolError(`the ${task.driver} driver cannot take answers`);
  await driver.answer(task, inputResponseOf(task), signal);
  return transactionWithEvents(async (tx) => {
    if (!(await lockExecutionGuarded(tx, task.id, token))) return "lost";
    await resumeAfterAnswer(tx, task.id);
    await recordEventAndAnnounce(tx, task.id);
    return "stepped";
  });
}

async function publish(tx: EventTx, task: Task, body: { partial: boolean; content: string }): Promise<void> {
  const { id, version: v } = await insertPublication(tx, task, body);
  await appendMessage(tx, {
    conversationId: task.conversationId,
    ownerId: task.ownerId,
    taskId: task.id,
    publicationId: id,
    kind: "body",
    content: body.content,
    meta: { partial: body.partial, version: v, title: task.title },
  });
  await setLatestPublication(tx, task.id, id);
}

/**
 * Writes the terminal status, its TerminalFact message and the outbox event in
 * the caller's transaction (row already locked by the caller's guard).
 */
export async function terminal(tx: Tx, taskId: string, status: TerminalStatus, error: string | null) {
  const task = await markTerminal(tx, taskId, status, error);
  if (!task) return null;
  // Plain words (people and models read it); the moment is in meta.completedAt, browsers word it from meta.
  const title = `"${task.title}"`;
  const text =
    status === "succeeded"
      ? `${title} finished.`
      : status === "failed"
        ? `${title} failed: ${(error ?? "unknown error").slice(0, 500)}`
        : status === "deadline_exceeded"
          ? `${title} stopped at its deadline; anything it already published stays.`
          : `${title} was cancelled; anything it already published stays.`;
  await appendMessage(tx, {
    skipIfGone: true,
    conversationId: task.conversationId,
    ownerId: task.ownerId,
    taskId: task.id,
    // The chat reply that asked for this cancel already says it; the line stays for the timeline.
    hidden: status === "cancelled" && task.cancelAnsweredInChat,
    kind: "terminal",
    content: text,
    meta: {
      status,
      completedAt: task.completedAt!.toISOString(),
      title: task.title,
      // Readers word the failure from these, never from `content`.
      ...(status === "failed" ? publicFailure(task.error) : {}),
    } satisfies TerminalMessageMeta,
  });
  await syncNotices(tx, task.id);
  await recordEventAndAnnounce(tx, task.id);
  return task;
}

async function finish(task: LeasedTask, token: string, status: "failed", error: string): Promise<boolean> {
  return transactionWithEvents(async (tx) => {
    if (!(await lockExecutionGuarded(tx, task.id, token))) return false;
    return (await terminal(tx, task.id, status, error)) !== null;
  });
}
