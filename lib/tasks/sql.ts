import { env } from "@/lib/config/env";
import type { Prisma } from "@/lib/db/generated/client.ts";
import type { DB } from "@/lib/db/generated/kysely.ts";
import { db, jsonb, jsonValue, prepared, type Executor, type Tx } from "@/lib/db/kysely";
import { fairPick, onlyRows } from "@/lib/limits/fair-claim-sql";
import { ACTIVE_STATUSES, TERMINAL_STATUSES, type TerminalStatus } from "@/lib/contract/task";
import { literals } from "@/lib/db/sql-list";
import { sql, type RawBuilder, type Selectable } from "kysely";
import { STOP_SENTENCES, type StopReason } from "./columns";

/**
 * Every claim and guard of the task execution and cancel loops lives here.
 *
 * Task lifecycle (status; `cancel` = cancelRequestedAt set):
 *
 *   from                      event                                   to              guard
 *   ------------------------  --------------------------------------  --------------  ---------------------------------------
 *   (none)                    start (API / agent tool)                submitted       owner's live conversation; clientRequestId unique
 *   submitted                 exec claim → driver.submit → handle     queued          exec token mine, lease alive, no cancel
 *   queued|running|updating   exec claim                              running         SKIP LOCKED, nextRunAt ≤ now(), lease free
 *   running                   step committed (checkpoint)             running         token mine, lease alive, no cancel, not terminal
 *   running                   step deferred (pacing wait)             running         same; lease dropped, nextRunAt = now() + wait
 *   running                   last step committed (final body)        succeeded       same
 *   running                   5 consecutive step errors / protocol    failed          same
 *   running                   model provider failed (retryable)       running         same; deferred, providerWaitSince set once;
 *                                                                                     the next committed step clears it
 *   running                   provider wait past its budget           failed          same (HERALD_MODEL_RETRY_BACKGROUND_MS)
 *   running|queued            update(message)                         updating        not terminal; next step consumes it → running
 *   running                   remote poll says input_required         input_required  same guard; an outbox event (notice + narration)
 *   input_required            answer stored, next claim → driver      running         same guard; polled again at once
 *   running|input_required    3rd consecutive poll error              (same)          event "tracking degraded"; remote drivers never give up
 *   any active                cancel request (first)                  (same) + cancel sets fence, drops exec lease; repeats change nothing
 *   any active + cancel       cancel claim → driver.cancel            cancelled       cancel token mine, lease alive, not terminal
 *                                                                      (or the driver's real terminal status)
 *   terminal                  anything                                (unchanged)     —
 *
 * Execution and cancel use separate lease tokens; a crash needs no recovery
 * code, the lease expires and the row is claimable again. Claims are fair
 * across accounts (lib/limits/fair-claim-sql.ts).
 */
export const taskLeaseMs = () => env("HERALD_TASK_LEASE_MS");
export const TASK_MAX_CONSECUTIVE_ERRORS = 5;

export const secs = (ms: number) => ms / 1000;

/**
 * `status NOT IN ${TERMINAL_SQL}`: the terminal list from lib/contract/task.ts, never retyped in SQL.
 * Literals, not parameters, so the planner can match the partial indexes on status.
 */
export const TERMINAL_SQL = literals(TERMINAL_STATUSES);
export const backoffMs = (
  failures: number,
  base = env("HERALD_TASK_RETRY_MS"),
  cap = env("HERALD_TASK_RETRY_CAP_MS"),
) => Math.min(base * 2 ** Math.min(failures, 16), cap);

/** A task row as Kysely reads it (the same shape as Prisma's `Task`). */
export type TaskRow = Selectable<DB["task"]>;
export type LeasedTask = TaskRow & { leaseToken: string };
export type CancelLeasedTask = TaskRow & { cancelLeaseToken: string };
/** A source a research task read (lib/tasks/sources.ts). */
export type TaskSourceRow = Selectable<DB["task_source"]>;

const ACTIVE = literals(ACTIVE_STATUSES);

// The lease loop's statements are templates, not the builder: the builder cost 18 µs of CPU a statement to build and
// compile, a template 1 µs (docs/benchmarks.md, "Typed SQL"). User commands use the builder.

/** Due for execution; `a` is the table alias. Repeats task_exec_due_idx's WHERE so the index serves it. */
const execDue = (a: string, only: string[] | null) => {
  const c = sql.raw(a);
  return sql`${c}.status IN ${ACTIVE} AND ${c}."cancelRequestedAt" IS NULL
    AND ${c}."nextRunAt" <= now() AND (${c}."leaseExpiresAt" IS NULL OR ${c}."leaseExpiresAt" < now())
    ${onlyRows(a, only)}`;
};

/**
 * Claims up to `limit` due tasks, fairly across accounts (lib/limits/fair-claim-sql.ts).
 * `onlyIds` narrows the claim to given rows (tests drive one task by hand).
 */
export async function claimExecution(workerId: string, limit: number, onlyIds?: string[]): Promise<LeasedTask[]> {
  if (limit <= 0) return [];
  return (await claimExecutionSql(workerId, limit, onlyIds ?? null).execute(db())).rows;
}

/** The statement itself, for EXPLAIN in the index test. */
export function claimExecutionSql(workerId: string, limit: number, only: string[] | null): RawBuilder<LeasedTask> {
  const pick = fairPick({
    table: "task",
    due: (a) => execDue(a, only),
    // Arrival order, not nextRunAt: a task's next step is due again the moment its last
    // one commits, and by nextRunAt it would queue behind every task that arrived after
    // it — a burst would finish all at once at its end. By arrival a started task goes
    // on first, so tasks finish in the order they came; fairPick still puts an account
    // holding fewer leases first, and waits (pacing, backoff) still hold no slot.
    order: sql`c."createdAt", c.id`,
    held: sql`h."leaseToken" IS NOT NULL AND h."leaseExpiresAt" > now()`,
    limit,
  });
  return sql<LeasedTask>`${prepared}
    UPDATE "task" t
    SET "leaseOwner" = ${workerId}, "leaseToken" = gen_random_uuid()::text,
        "leaseExpiresAt" = now() + make_interval(secs => ${secs(taskLeaseMs())}),
        attempts = t.attempts + 1
    WHERE t.id IN (${pick})
    RETURNING t.*`;
}

/** Our execution lease still holds and nothing fenced the row: the guard of every write after work. */
const leaseHeld = (token: string) =>
  sql<boolean>`"leaseToken" = ${token} AND "leaseExpiresAt" > now() AND "cancelRequestedAt" IS NULL AND status NOT IN ${TERMINAL_SQL}`;

/** Whether an UPDATE without RETURNING changed exactly one row. */
export const one = (r: { numAffectedRows?: bigint }) => r.numAffectedRows === 1n;

/** Locks the row for a post-work write, only if our execution lease still holds. */
export async function lockExecutionGuarded(tx: Tx, id: string, token: string): Promise<TaskRow | null> {
  const { rows } = await sql<TaskRow>`${prepared}
    SELECT * FROM "task" WHERE id = ${id} AND ${leaseHeld(token)} FOR UPDATE`.execute(tx);
  return rows[0] ?? null;
}

export async function renewExecutionLease(id: string, token: string): Promise<boolean> {
  return one(
    await sql`
      UPDATE "task" SET "leaseExpiresAt" = now() + make_interval(secs => ${secs(taskLeaseMs())})
      WHERE id = ${id} AND "leaseToken" = ${token} AND "leaseExpiresAt" > now() AND "cancelRequestedAt" IS NULL`.execute(
      db(),
    ),
  );
}

export async function countTaskModelRequest(id: string, token: string): Promise<boolean> {
  return one(
    await sql`
      UPDATE "task" SET "modelRequests" = "modelRequests" + 1
      WHERE id = ${id} AND "leaseToken" = ${token} AND "cancelRequestedAt" IS NULL`.execute(db()),
  );
}

/**
 * Adds one answered request's tokens (and estimated cost) to the task. By id
 * only, not by lease: the provider spent them whoever owns the row now.
 */
export async function addTaskUsage(
  id: string,
  u: { inputTokens: number; outputTokens: number; costUsd: number | null },
): Promise<void> {
  await sql`
    UPDATE "task" SET "inputTokens" = "inputTokens" + ${u.inputTokens}, "outputTokens" = "outputTokens" + ${u.outputTokens},
      "costUsd" = CASE WHEN ${u.costUsd}::float8 IS NULL THEN "costUsd" ELSE coalesce("costUsd", 0) + ${u.costUsd}::float8 END
    WHERE id = ${id}`.execute(db());
}

/** How long the task has been waiting for the model provider (database clock); 0 when it is not. */
export async function providerWaitedMs(tx: Tx, id: string): Promise<number> {
  const { rows } = await sql<{ ms: number }>`
    SELECT (extract(epoch FROM now() - coalesce("providerWaitSince", now())) * 1000)::float8 AS ms FROM "task" WHERE id = ${id}`.execute(
    tx,
  );
  return rows[0]?.ms ?? 0;
}

/**
 * running → running, waiting for the model provider: like a pacing defer (no
 * lease, no attempt, no error) but marks the wait. Its start moves updatedAt
 * (the task now says so); later waits of the same outage do not. True when the
 * wait just began.
 */
export async function deferForProvider(tx: Tx, id: string, delayMs: number): Promise<boolean> {
  const { rows } = await sql<{ began: boolean }>`
    UPDATE "task" t SET "leaseOwner" = NULL, "leaseToken" = NULL, "leaseExpiresAt" = NULL,
      "nextRunAt" = now() + make_interval(secs => ${secs(delayMs)}),
      attempts = t.attempts - 1, "consecutiveErrors" = 0,
      "providerWaitSince" = coalesce(t."providerWaitSince", now()),
      "updatedAt" = CASE WHEN t."providerWaitSince" IS NULL THEN now() ELSE t."updatedAt" END
    FROM (SELECT "providerWaitSince" IS NULL AS began FROM "task" WHERE id = ${id}) before
    WHERE t.id = ${id}
    RETURNING before.began`.execute(tx);
  return rows[0]?.began ?? false;
}

/** What a start writes; everything else takes its column default. */
export type NewTask = Pick<
  TaskRow,
  | "ownerId"
  | "conversationId"
  | "originMessageId"
  | "originRunId"
  | "title"
  | "prompt"
  | "driver"
  | "deliveryMode"
  | "dueAt"
  | "reportIfUnfinished"
  | "allowOvertime"
> & { clientRequestId: string; options?: Prisma.InputJsonValue; budget?: Prisma.InputJsonValue };

/**
 * (none) → submitted: the launch intent. `admission` is a one-row query read in the
 * same statement (lib/limits/quotas.ts, run after the account's lock), as for a chat
 * turn's run (lib/runs/sql.ts): the task is inserted only when its `admitted` column
 * is true, and the row comes back either way for the caller to say why not. `now` is
 * the database clock the caller read in its transaction; claims compare nextRunAt
 * with now(), never this process's clock.
 */
export async function insertTaskIfAdmitted<A extends { admitted: boolean }>(
  tx: Tx,
  now: Date,
  t: NewTask,
  admission: RawBuilder<A>,
): Promise<{ task: TaskRow | null; admission: A }> {
  const { rows } = await sql<TaskRow & { admission: A }>`${prepared}
    WITH admission AS (${admission}),
    inserted AS (
      INSERT INTO "task" ("ownerId", "conversationId", "originMessageId", "originRunId", "clientRequestId", title, prompt, driver,
        options, "deliveryMode", "dueAt", "reportIfUnfinished", "allowOvertime", budget, status, "createdAt", "updatedAt", "nextRunAt")
      SELECT ${t.ownerId}, ${t.conversationId}, ${t.originMessageId}, ${t.originRunId}, ${t.clientRequestId}, ${t.title}, ${t.prompt}, ${t.driver},
        ${jsonb(t.options)}::jsonb, ${t.deliveryMode}, ${t.dueAt}::timestamptz, ${t.reportIfUnfinished}, ${t.allowOvertime}, ${jsonb(t.budget)}::jsonb,
        'submitted', ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
      FROM admission WHERE admission.admitted
      RETURNING *)
    SELECT to_jsonb(admission) AS admission, inserted.*
    FROM admission LEFT JOIN inserted ON true`.execute(tx);
  const { admission: figures, ...task } = rows[0];
  return { task: task.id === null ? null : task, admission: figures };
}

// ---- writes after work, in the caller's transaction (row locked by a guard above, or guarded in their own WHERE) ----

/**
 * submitted → queued: the driver's handle is stored before the task counts as queued.
 * The lease guard is in the update itself (null: the lease is gone), a statement fewer than a guard lock first.
 */
export async function storeHandle(
  tx: Tx,
  id: string,
  token: string,
  remoteRef: string,
  driverData: Record<string, unknown>,
): Promise<TaskRow | null> {
  const { rows } = await sql<TaskRow>`${prepared}
    UPDATE "task" SET "remoteRef" = ${remoteRef}, "driverData" = ${jsonb(driverData)}::jsonb,
      status = 'queued', "leaseOwner" = NULL, "leaseToken" = NULL, "leaseExpiresAt" = NULL,
      "nextRunAt" = now(), "updatedAt" = now()
    WHERE id = ${id} AND ${leaseHeld(token)}
    RETURNING *`.execute(tx);
  return rows[0] ?? null;
}

/** queued → running on the first step, under the lease; the row when it changed (writers announce it without reading it again). */
export async function markStarted(tx: Tx, id: string, token: string): Promise<TaskRow | null> {
  const { rows } = await sql<TaskRow>`${prepared}
    UPDATE "task" SET status = 'running', "startedAt" = coalesce("startedAt", now()), "updatedAt" = now()
    WHERE id = ${id} AND status IN ('queued') AND ${leaseHeld(token)}
    RETURNING *`.execute(tx);
  return rows[0] ?? null;
}

export async function setProgress(tx: Tx, id: string, text: string): Promise<TaskRow> {
  const { rows } = await sql<TaskRow>`${prepared}
    UPDATE "task" SET "progressText" = ${text}, "progressAt" = now() WHERE id = ${id} RETURNING *`.execute(tx);
  return rows[0];
}

/** The driver's step count; stepsAt (database clock) anchors the ETA the browser works out. */
export async function setStepCount(tx: Tx, id: string, done: number, total: number): Promise<void> {
  await sql`UPDATE "task" SET "stepsDone" = ${done}, "stepsTotal" = ${total}, "stepsAt" = now() WHERE id = ${id}`.execute(
    tx,
  );
}

export async function setLatestPublication(tx: Tx, id: string, publicationId: string): Promise<void> {
  await sql`UPDATE "task" SET "latestPublicationId" = ${publicationId} WHERE id = ${id}`.execute(tx);
}

/** driverData.searches + 1 under the execution lease, unless it already reached `max` (lib/tasks/sources.ts). */
export async function countTaskSearchUnder(id: string, token: string, max: number): Promise<boolean> {
  const searches = sql`CASE WHEN jsonb_typeof("driverData"->'searches') = 'number' THEN ("driverData"->>'searches')::numeric ELSE 0 END`;
  return one(
    await sql`
      UPDATE "task" SET "driverData" = jsonb_set(coalesce("driverData", '{}'::jsonb), '{searches}', to_jsonb(${searches} + 1))
      WHERE id = ${id} AND "leaseToken" = ${token} AND "cancelRequestedAt" IS NULL AND ${searches} < ${max}`.execute(
      db(),
    ),
  );
}

export interface PollResult {
  /** The remote asks for input (input_required); otherwise it is working. */
  waiting: boolean;
  inputRequest: unknown;
  delayMs: number;
  remainingUpdates: string[];
  /** Merged into driverData (StepOutcome.driverState). */
  driverState?: Record<string, unknown>;
}

/**
 * A step or poll committed without finishing: lease dropped, next run scheduled.
 * This is the only place input_required is entered, and — with resumeAfterAnswer —
 * left: running|updating ⇄ input_required, updating → running once its updates are consumed.
 */
export async function commitPoll(tx: Tx, id: string, r: PollResult): Promise<void> {
  // JSON null, not SQL NULL, for a waiting task without a request, as it always has stored.
  await sql`
    UPDATE "task" SET "leaseOwner" = NULL, "leaseToken" = NULL, "leaseExpiresAt" = NULL,
      "consecutiveErrors" = 0, "updatedAt" = now(), "providerWaitSince" = NULL,
      -- An answer stored while this poll ran is handed over at once; once the remote
      -- stops waiting, a stored answer belongs to no question and is dropped.
      "nextRunAt" = CASE WHEN ${r.waiting} AND "inputResponse" IS NOT NULL THEN now() ELSE now() + make_interval(secs => ${secs(r.delayMs)}) END,
      "inputResponse" = CASE WHEN ${r.waiting} THEN "inputResponse" ELSE NULL END,
      "pendingUpdates" = ${jsonb(r.remainingUpdates)}::jsonb,
      "driverData" = coalesce("driverData", '{}'::jsonb) || ${jsonb(r.driverState ?? {})}::jsonb,
      "inputRequest" = CASE WHEN ${r.waiting} THEN ${jsonValue(r.inputRequest)}::jsonb ELSE NULL END,
      status = CASE
        WHEN ${r.waiting} THEN 'input_required'
        WHEN status = 'input_required' THEN 'running'
        WHEN status = 'updating' AND ${r.remainingUpdates.length} = 0 THEN 'running'
        ELSE status END
    WHERE id = ${id}`.execute(tx);
}

/** Driver bookkeeping that outlives the lease (a finishing step's counts): merged into driverData, nothing else moves. */
export async function mergeDriverState(tx: Tx, id: string, state: Record<string, unknown>): Promise<void> {
  await sql`UPDATE "task" SET "driverData" = coalesce("driverData", '{}'::jsonb) || ${jsonb(state)}::jsonb WHERE id = ${id}`.execute(
    tx,
  );
}

/** input_required → running: the driver took the stored answer; poll again at once. */
export async function resumeAfterAnswer(tx: Tx, id: string): Promise<void> {
  await sql`
    UPDATE "task" SET "inputResponse" = NULL, "inputRequest" = NULL, status = 'running', "nextRunAt" = now(), "updatedAt" = now(),
      "leaseOwner" = NULL, "leaseToken" = NULL, "leaseExpiresAt" = NULL
    WHERE id = ${id}`.execute(tx);
}

/**
 * Any active → terminal, once: every lease and schedule is cleared. Null if it already was terminal.
 * With `leaseToken` the statement is its own guard (no lock taken first): one round trip
 * for a terminal write that needs no other write beside it.
 */
export async function markTerminal(
  tx: Executor,
  id: string,
  status: TerminalStatus,
  error: string | null,
  leaseToken?: string,
): Promise<TaskRow | null> {
  const q = sql<TaskRow>`${prepared}
    UPDATE "task" SET status = ${status}, error = coalesce(${error}, error), "completedAt" = now(), "updatedAt" = now(),
      "leaseOwner" = NULL, "leaseToken" = NULL, "leaseExpiresAt" = NULL, "nextRunAt" = NULL,
      "cancelLeaseOwner" = NULL, "cancelLeaseToken" = NULL, "cancelLeaseExpiresAt" = NULL, "nextCancelAt" = NULL
    WHERE id = ${id} AND status NOT IN ${TERMINAL_SQL} AND ${leaseToken === undefined ? sql`true` : leaseHeld(leaseToken)}
    RETURNING *`;
  const [row] = (await q.execute(tx)).rows;
  return row ?? null;
}

/**
 * Marks why the research stopped (the reason picks the terminal status and the notice); the first reason wins. The
 * sentence is for people and only fills an empty `error`: an earlier attempt's error is kept, and no code reads it.
 */
export async function setStopReason(tx: Executor, id: string, reason: StopReason): Promise<void> {
  await tx
    .updateTable("task")
    .set({
      stopReason: sql<string>`coalesce("stopReason", ${reason})`,
      error: sql<string>`coalesce(error, ${STOP_SENTENCES[reason]})`,
    })
    .where("id", "=", id)
    .execute();
}

/** Gives the row back (shutdown: not counted; transient error: counted, with backoff from now). False: not ours. */
export async function releaseExecution(
  id: string,
  token: string,
  error: string | null,
  delayMs: number,
  counted: boolean,
): Promise<boolean> {
  return one(
    await sql`
      UPDATE "task" SET "leaseOwner" = NULL, "leaseToken" = NULL, "leaseExpiresAt" = NULL,
        "nextRunAt" = now() + make_interval(secs => ${secs(delayMs)}),
        "consecutiveErrors" = "consecutiveErrors" + ${counted ? 1 : 0},
        attempts = attempts - ${counted ? 0 : 1},
        error = coalesce(${error}, error)
      WHERE id = ${id} AND "leaseToken" = ${token}`.execute(db()),
  );
}

/**
 * Ends the claim without work: the task waits `delayMs` holding no slot. Not an
 * attempt and not an error; `driverState` is merged into driverData.
 */
export async function deferExecution(id: string, token: string, delayMs: number, driverState: Record<string, unknown>) {
  return one(
    await sql`
      UPDATE "task" SET "leaseOwner" = NULL, "leaseToken" = NULL, "leaseExpiresAt" = NULL,
        "nextRunAt" = now() + make_interval(secs => ${secs(delayMs)}),
        attempts = attempts - 1, "consecutiveErrors" = 0,
        "driverData" = coalesce("driverData", '{}'::jsonb) || ${jsonb(driverState)}::jsonb
      WHERE id = ${id} AND "leaseToken" = ${token} AND "leaseExpiresAt" > now() AND "cancelRequestedAt" IS NULL`.execute(
      db(),
    ),
  );
}

/** The earliest time the execution loop has work (for sleeping instead of polling blindly). */
export async function nextExecutionDueMs(): Promise<number | null> {
  const [row] = (await nextExecutionDueSql.execute(db())).rows;
  return row?.ms === null || row?.ms === undefined ? null : Math.max(0, row.ms);
}

export const nextExecutionDueSql = sql<{ ms: number | null }>`
    SELECT (extract(epoch FROM (min(greatest("nextRunAt", coalesce("leaseExpiresAt", "nextRunAt"))) - now())) * 1000)::float8 AS ms
    FROM "task"
    WHERE status IN ${ACTIVE} AND "cancelRequestedAt" IS NULL`;
