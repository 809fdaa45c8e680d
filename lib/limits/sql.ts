import type { Tx } from "@/lib/db/kysely";
import { sql, type RawBuilder } from "kysely";
import { literals } from "@/lib/db/sql-list";
import { ACTIVE_STATUSES } from "@/lib/contract/task";
import { RUN_ACTIVE_STATUSES } from "@/lib/contract/shapes";
import { limits } from "./config";

// Literals (task_owner_active_idx, run_owner_active_idx are partial on them), from the one definition of each set.
const TASK_ACTIVE = literals(ACTIVE_STATUSES);
const RUN_ACTIVE = literals(RUN_ACTIVE_STATUSES);

/**
 * Quota checks run inside the transaction that creates the row, under the
 * account's user row lock, so two concurrent requests cannot both take the
 * last unit. Locks are taken in writer order (conversation, then account) to
 * never deadlock with workers appending messages. Every count is served by a
 * per-account index (see the quotas_fairness migration).
 */

/** Serialises an account's creating requests; emitEvent takes the same lock later anyway. */
export async function lockAccount(tx: Tx, ownerId: string): Promise<void> {
  await tx
    .selectFrom("user")
    .select(sql`1`.as("one"))
    .where("id", "=", ownerId)
    .forUpdate()
    .execute();
}

/** The account's task figures, one row of `taskAdmission`. */
export interface TaskAdmission {
  /** Tasks not yet terminal (input_required included), the one being started not yet among them. */
  active: number;
  /** Tasks started in the rolling minute, the one being started not yet among them. */
  recent: number;
  oldest_age: number | null;
  admitted: boolean;
}

/**
 * One row (TaskAdmission): both counts in one statement. Run after the account is
 * locked (a statement of its own: a statement that waited for the lock would count
 * from a snapshot older than the lock), so a concurrent start of the account is
 * counted in turn. The task's insert reads it in the same statement (lib/tasks/sql.ts).
 */
export function taskAdmission(ownerId: string): RawBuilder<TaskAdmission> {
  const l = limits();
  return sql<TaskAdmission>`
    SELECT t.active, r.recent, r.oldest_age,
      (t.active < ${l.activeTasks}::bigint AND r.recent < ${l.taskStartsPerMinute}::bigint) AS admitted
    FROM (SELECT count(*)::int AS active FROM "task"
            WHERE "ownerId" = ${ownerId} AND status IN ${TASK_ACTIVE}) t,
         (SELECT count(*)::int AS recent, extract(epoch FROM now() - min("createdAt"))::float8 AS oldest_age
            FROM "task" WHERE "ownerId" = ${ownerId} AND "createdAt" > now() - interval '60 seconds') r`;
}

/** The account's message figures, one row of `messageAdmission`. */
export interface MessageAdmission {
  /** User messages in the rolling minute, the one being posted included. */
  recent: number;
  oldest_age: number | null;
  /** Chat turns queued or running, the one being posted not yet among them. */
  turns: number;
  admitted: boolean;
}

/**
 * One row (MessageAdmission): both figures in one statement. Run after the message
 * row is inserted and the account locked by its event, so the count includes it and
 * a concurrent post of the account is counted in turn; its run is not created yet.
 * The caller may read it inside the statement that creates the run (lib/runs/sql.ts).
 */
export function messageAdmission(ownerId: string): RawBuilder<MessageAdmission> {
  const l = limits();
  return sql<MessageAdmission>`
    SELECT m.recent, m.oldest_age, r.turns,
      (m.recent <= ${l.messagesPerMinute}::bigint AND r.turns < ${l.queuedTurns}::bigint) AS admitted
    FROM (SELECT count(*)::int AS recent, extract(epoch FROM now() - min("createdAt"))::float8 AS oldest_age
            FROM "message"
            WHERE "ownerId" = ${ownerId} AND kind = 'user' AND NOT hidden AND "createdAt" > now() - interval '60 seconds') m,
         (SELECT count(*)::int AS turns FROM "run"
            WHERE "ownerId" = ${ownerId} AND kind = 'chat' AND status IN ${RUN_ACTIVE}) r`;
}

/** The account's conversation figures, the one being created not yet among them. */
export interface ConversationAdmission {
  /** Conversations not deleted. */
  live: number;
  /** Conversations created in the rolling minute, deleted ones included (create-and-delete is still creating). */
  recent: number;
  /** Seconds until the oldest of `recent` leaves the window. */
  retry: number;
}

/**
 * The account's conversation figures (lib/limits/conversation-quota.ts), read after its lock: a statement that waited
 * for the lock would count from an older snapshot. Served by conversation_owner_created_idx.
 */
export async function conversationAdmission(tx: Tx, ownerId: string): Promise<ConversationAdmission> {
  const {
    rows: [a],
  } = await sql<ConversationAdmission>`
    SELECT count(*) FILTER (WHERE "deletedAt" IS NULL)::int AS live,
      count(*) FILTER (WHERE "createdAt" > now() - interval '60 seconds')::int AS recent,
      greatest(1, ceil(60 - extract(epoch FROM now() - min("createdAt") FILTER (WHERE "createdAt" > now() - interval '60 seconds'))))::int AS retry
    FROM "conversation" WHERE "ownerId" = ${ownerId}`.execute(tx);
  return a;
}
