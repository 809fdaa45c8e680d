import { env } from "@/lib/config/env";
import type { DB } from "@/lib/db/generated/kysely.ts";
import { db, type Executor, type Tx } from "@/lib/db/kysely";
import { fairPick } from "@/lib/limits/fair-claim-sql";
import { RUN_ACTIVE_STATUSES } from "@/lib/contract/shapes";
import { literals } from "@/lib/db/sql-list";
import { sql, type RawBuilder, type Selectable } from "kysely";

/**
 * Every claim and guard statement of the run loop lives here.
 *
 * Run state machine (one module; see also lib/runtime/execute-run.ts):
 *
 *   from        event                                   to         guard
 *   ---------   -------------------------------------   --------   ------------------------------
 *   queued      claim (head of its conversation)        running    FOR UPDATE SKIP LOCKED, now()
 *   running     lease expired (crash) → claim again     running    new token; attempts + 1
 *   running     model finished, reply stored            succeeded  token = mine, lease alive
 *   running     model error / attempts exhausted        failed     token = mine
 *   running     shutdown (SIGTERM)                      queued     token = mine; attempt not counted
 *   queued|running  conversation deleted                cancelled  —
 *
 * "Head of its conversation" = no older queued/running run in the same
 * conversation, which gives both FIFO order and one active run per conversation.
 * Among accounts the claim is fair (lib/limits/fair-claim-sql.ts): an account
 * holding fewer running runs goes first, and none holds more than its slots.
 */

export const runLeaseMs = () => env("HERALD_RUN_LEASE_MS");
export const runMaxAttempts = () => env("HERALD_RUN_MAX_ATTEMPTS");

/** A run row as Kysely reads it (the same shape as Prisma's `Run`). */
export type RunRow = Selectable<DB["run"]>;
export type ClaimedRun = RunRow & { leaseToken: string };

/** queued | running: run_due_idx's and run_owner_active_idx's predicate. */
const ACTIVE = literals(RUN_ACTIVE_STATUSES);

// The run loop's statements are templates, not the builder, for the CPU a builder costs on every turn (see
// lib/tasks/sql.ts); the rest use the builder.

/** Claimable and head of its conversation; `a` is the table alias. */
const runDue = (a: string) => {
  const q = sql.raw(a);
  return sql`(${q}.status = 'queued' OR (${q}.status = 'running' AND ${q}."leaseExpiresAt" < now()))
    AND NOT EXISTS (
      SELECT 1 FROM "run" o
      WHERE o."conversationId" = ${q}."conversationId" AND o.status IN ${ACTIVE}
        AND (o."createdAt", o.id) < (${q}."createdAt", ${q}.id))
    -- createdAt order is not commit order (a run can commit after a newer one was
    -- claimed), so a live running run also blocks the conversation outright.
    AND NOT EXISTS (
      SELECT 1 FROM "run" b
      WHERE b."conversationId" = ${q}."conversationId" AND b.id <> ${q}.id
        AND b.status = 'running' AND b."leaseExpiresAt" >= now())`;
};

/** Whether an UPDATE without RETURNING changed exactly one row. */
const one = (r: { numAffectedRows?: bigint }) => r.numAffectedRows === 1n;

/** Claims up to `limit` runs, fairly across accounts (lib/limits/fair-claim-sql.ts). */
export async function claimRuns(workerId: string, limit: number): Promise<ClaimedRun[]> {
  if (limit <= 0) return [];
  return (await claimRunsSql(workerId, limit).execute(db())).rows;
}

/** The statement itself, for EXPLAIN in the index test. */
export function claimRunsSql(workerId: string, limit: number): RawBuilder<ClaimedRun> {
  const leaseSeconds = runLeaseMs() / 1000;
  const pick = fairPick({
    table: "run",
    due: runDue,
    order: sql`c."createdAt", c.id`,
    held: sql`h.status = 'running' AND h."leaseExpiresAt" > now()`,
    limit,
  });
  return sql<ClaimedRun>`
    UPDATE "run" r
    SET status = 'running', "leaseOwner" = ${workerId}, "leaseToken" = gen_random_uuid()::text,
        "leaseExpiresAt" = now() + make_interval(secs => ${leaseSeconds}), attempts = r.attempts + 1,
        "startedAt" = coalesce(r."startedAt", now()), "updatedAt" = now()
    WHERE r.id IN (${pick})
    RETURNING r.*`;
}

/** Extends the lease while work is in progress; false means the run is no longer ours. */
export async function renewRunLease(id: string, token: string): Promise<boolean> {
  const leaseSeconds = runLeaseMs() / 1000;
  return one(
    await sql`
      UPDATE "run" SET "leaseExpiresAt" = now() + make_interval(secs => ${leaseSeconds})
      WHERE id = ${id} AND "leaseToken" = ${token} AND status = 'running' AND "leaseExpiresAt" > now()`.execute(db()),
  );
}

/** Counts a model request before it is sent, so a crash mid-request still shows it. */
export async function countRunModelRequest(id: string, token: string): Promise<boolean> {
  return one(
    await sql`
      UPDATE "run" SET "modelRequests" = "modelRequests" + 1
      WHERE id = ${id} AND "leaseToken" = ${token} AND status = 'running'`.execute(db()),
  );
}

/** Adds one answered request's tokens (and estimated cost) to the run; by id, the tokens were spent either way. */
export async function addRunUsage(
  id: string,
  u: { inputTokens: number; outputTokens: number; costUsd: number | null },
): Promise<void> {
  await sql`
    UPDATE "run" SET "inputTokens" = "inputTokens" + ${u.inputTokens}, "outputTokens" = "outputTokens" + ${u.outputTokens},
      "costUsd" = CASE WHEN ${u.costUsd}::float8 IS NULL THEN "costUsd" ELSE coalesce("costUsd", 0) + ${u.costUsd}::float8 END
    WHERE id = ${id}`.execute(db());
}

/**
 * Takes the run out of `running` inside the caller's transaction, only if our
 * lease still holds. Returns null on a guard miss: someone else owns it now.
 */
export async function finishRunGuarded(
  tx: Tx,
  id: string,
  token: string,
  status: "succeeded" | "failed",
  error: string | null,
): Promise<RunRow | null> {
  const { rows } = await sql<RunRow>`
    UPDATE "run" SET status = ${status}, error = ${error}, "finishedAt" = now(), "updatedAt" = now(),
      "leaseToken" = NULL, "leaseOwner" = NULL, "leaseExpiresAt" = NULL
    WHERE id = ${id} AND "leaseToken" = ${token} AND status = 'running' AND "leaseExpiresAt" > now()
    RETURNING *`.execute(tx);
  return rows[0] ?? null;
}

/** Gives the run back on shutdown without counting the attempt. */
export async function releaseRun(id: string, token: string): Promise<boolean> {
  return one(
    await sql`
      UPDATE "run" SET status = 'queued', attempts = greatest(attempts - 1, 0), "updatedAt" = now(),
        "leaseToken" = NULL, "leaseOwner" = NULL, "leaseExpiresAt" = NULL
      WHERE id = ${id} AND "leaseToken" = ${token} AND status = 'running'`.execute(db()),
  );
}

// ---- creating and closing runs ----

/**
 * A user turn's run, queued with its message (same transaction). `admission` is a
 * one-row query read in the same statement (lib/limits/quotas.ts): the run is
 * inserted only when its `admitted` column is true, and the row comes back either
 * way for the caller to say why not. The caller's run.updated event wakes the run
 * loop. createdAt is the moment of the insert, after the conversation row lock, so
 * the turns of one conversation queue in the order of their messages.
 */
export async function insertChatRun<A extends { admitted: boolean }>(
  tx: Executor,
  r: { ownerId: string; conversationId: string; triggerMessageId: string },
  admission: RawBuilder<A>,
): Promise<{ run: RunRow | null; admission: A }> {
  const {
    rows: [row],
  } = await sql<RunRow & { admission: A }>`
      WITH admission AS (${admission}),
      inserted AS (
        INSERT INTO "run" ("ownerId", "conversationId", kind, "idempotencyKey", "triggerMessageId", "createdAt", "updatedAt")
        SELECT ${r.ownerId}, ${r.conversationId}, 'chat', ${`chat:${r.triggerMessageId}`}, ${r.triggerMessageId}, at.t, at.t
        FROM admission, LATERAL (SELECT clock_timestamp() AS t) at
        WHERE admission.admitted
        RETURNING *)
      SELECT to_jsonb(admission) AS admission, inserted.*
      FROM admission LEFT JOIN inserted ON true`.execute(tx);
  const { admission: figures, ...run } = row;
  return { run: run.id === null ? null : run, admission: figures };
}

/** queued|running → cancelled for every run of a conversation being deleted. */
export async function cancelConversationRuns(tx: Executor, conversationId: string): Promise<void> {
  await tx
    .updateTable("run")
    .set({
      status: "cancelled",
      finishedAt: sql<Date>`now()`,
      updatedAt: sql<Date>`now()`,
      error: "conversation deleted",
      leaseToken: null,
      leaseExpiresAt: null,
    })
    .where("conversationId", "=", conversationId)
    .where("status", "in", ACTIVE)
    .execute();
}

export async function findRunByKey(tx: Executor, idempotencyKey: string): Promise<RunRow | null> {
  // Templates, as every statement a task's narration runs each time (lib/notify/sql.ts says why).
  const {
    rows: [run],
  } = await sql<RunRow>`SELECT * FROM "run" WHERE "idempotencyKey" = ${idempotencyKey}`.execute(tx);
  return run ?? null;
}

export async function findRun(tx: Executor, id: string): Promise<RunRow | null> {
  const {
    rows: [run],
  } = await sql<RunRow>`SELECT * FROM "run" WHERE id = ${id}`.execute(tx);
  return run ?? null;
}

/**
 * Creates the queued narration run unless a run with the key exists (UNIQUE).
 * Returns the run and whether this call created it; a concurrent creator of the
 * same key is waited for by the unique index, so the loser sees the winner's row.
 * Without `id` the database names it.
 */
export async function insertNotificationRun(
  tx: Tx,
  r: { id?: string; ownerId: string; conversationId: string; taskId: string; idempotencyKey: string },
): Promise<{ run: RunRow; created: boolean }> {
  const {
    rows: [inserted],
  } = await sql<RunRow>`
    INSERT INTO "run" (${r.id === undefined ? sql`` : sql`id, `}"ownerId", "conversationId", "taskId", "idempotencyKey", kind, status)
    VALUES (${r.id === undefined ? sql`` : sql`${r.id}, `}${r.ownerId}, ${r.conversationId}, ${r.taskId}, ${r.idempotencyKey}, 'notification', 'queued')
    ON CONFLICT ("idempotencyKey") DO NOTHING
    RETURNING *`.execute(tx);
  if (inserted) return { run: inserted, created: true };
  const existing = await findRunByKey(tx, r.idempotencyKey);
  if (!existing) throw new Error(`notification run ${r.idempotencyKey} neither inserted nor found`);
  return { run: existing, created: false };
}

/** Points the run at its hidden prompt so its history stops there. */
export async function setRunTrigger(tx: Tx, runId: string, messageId: string): Promise<RunRow> {
  const {
    rows: [run],
  } = await sql<RunRow>`UPDATE "run" SET "triggerMessageId" = ${messageId} WHERE id = ${runId} RETURNING *`.execute(tx);
  if (!run) throw new Error(`setRunTrigger: no run ${runId}`);
  return run;
}

/** Locks the owner's runs (of one conversation, if given) in id order: the first lock of a deletion. */
export async function lockOwnerRuns(tx: Tx, ownerId: string, conversationId?: string): Promise<void> {
  await tx
    .selectFrom("run")
    .select("id")
    .where("ownerId", "=", ownerId)
    .$if(conversationId !== undefined, (qb) => qb.where("conversationId", "=", conversationId!))
    .orderBy("id")
    .forUpdate()
    .execute();
}

/** The account's runs, on its deletion. */
export async function deleteOwnerRuns(tx: Tx, ownerId: string): Promise<void> {
  await tx.deleteFrom("run").where("ownerId", "=", ownerId).execute();
}
