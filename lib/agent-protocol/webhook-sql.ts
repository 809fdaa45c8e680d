import type { DB } from "@/lib/db/generated/kysely.ts";
import { db, prepared, type Tx } from "@/lib/db/kysely";
import { TERMINAL_STATUSES } from "@/lib/contract/task";
import { literals } from "@/lib/db/sql-list";
import { fairPick, onlyRows } from "@/lib/limits/fair-claim-sql";
import { sql, type Insertable, type Selectable } from "kysely";

/**
 * Every statement of the Agent Protocol webhook outbox (ap_webhook). A run
 * created with `webhook` gets its row in the run's own transaction; the loop
 * (lib/agent-protocol/webhook-loop.ts) claims a row once its run is over and POSTs it.
 *
 *   state      event                                          → state
 *   —          run created with `webhook`                     waiting
 *   waiting    claimed after the run ended (task terminal,    (delivery)
 *              input_required, or taken over by a newer run)
 *   pending    claimed at nextAt                              (delivery)
 *   (delivery) a 2xx                                          delivered   (never sent again)
 *   (delivery) refused address (no private hosts), bad URL    dead        (retrying cannot help)
 *   (delivery) anything else, attempts < budget               pending     nextAt = max(backoff, Retry-After)
 *   (delivery) anything else, budget spent                    dead
 *
 * Fence for every write after a claim: leaseToken = the claim's token AND
 * leaseUntil > clock_timestamp() AND state as claimed. A miss means the lease
 * expired and another worker may own the row: the result is dropped (the
 * receiver may then get the same delivery twice; it is idempotent by run_id).
 */

export const WEBHOOK_LOOP = "ap-webhooks";
export type WebhookState = "waiting" | "pending" | "delivered" | "dead";

/** An ap_webhook row as Kysely reads it. */
export type ApWebhookRow = Selectable<DB["ap_webhook"]>;

const OVER_LIST = literals([...TERMINAL_STATUSES, "input_required"]);

function due(alias: string) {
  const c = sql.raw(alias);
  return sql`(${c}."leaseUntil" IS NULL OR ${c}."leaseUntil" < now())
    AND ((${c}.state = 'pending' AND ${c}."nextAt" <= now())
      OR (${c}.state = 'waiting' AND EXISTS (
        SELECT 1 FROM "ap_run" r JOIN "task" t ON t.id = r."taskId"
        WHERE r.id = ${c}."runId"
          AND (t.status IN ${OVER_LIST}
            OR EXISTS (SELECT 1 FROM "ap_run" n WHERE n."taskId" = r."taskId" AND n."createdAt" > r."createdAt")))))`;
}

/** The row a run created with `webhook` gets, in the run's own transaction: once the run exists its end is POSTed. */
export async function insertWebhook(
  tx: Tx,
  w: Pick<Insertable<DB["ap_webhook"]>, "ownerId" | "runId" | "threadId" | "url" | "secret">,
): Promise<void> {
  await tx.insertInto("ap_webhook").values(w).execute();
}

export interface WebhookFence {
  id: string;
  token: string;
  state: WebhookState;
}

export function claimWebhooksSql(workerId: string, limit: number, leaseMs: number, only: string[] | null = null) {
  const pick = fairPick({
    table: "ap_webhook",
    due: (a) => sql`${due(a)} ${onlyRows(a, only)}`,
    order: sql`c."nextAt" NULLS FIRST, c.id`,
    held: sql`h."leaseToken" IS NOT NULL AND h."leaseUntil" > now()`,
    limit,
  });
  return sql<WebhookFence>`${prepared}
    UPDATE "ap_webhook" w
    SET "leaseOwner" = ${workerId}, "leaseToken" = gen_random_uuid()::text,
        "leaseUntil" = now() + make_interval(secs => ${leaseMs / 1000})
    WHERE w.id IN (${pick})
    RETURNING w.id, w."leaseToken" AS token, w.state`;
}

export async function claimWebhooks(workerId: string, limit: number, leaseMs: number): Promise<WebhookFence[]> {
  if (limit <= 0) return [];
  return (await claimWebhooksSql(workerId, limit, leaseMs).execute(db())).rows;
}

export type ClaimedWebhook = Pick<
  ApWebhookRow,
  "id" | "ownerId" | "runId" | "threadId" | "url" | "secret" | "attempts"
>;

export async function readClaimed(f: WebhookFence): Promise<ClaimedWebhook | null> {
  const row = await db()
    .selectFrom("ap_webhook")
    .select(["id", "ownerId", "runId", "threadId", "url", "secret", "attempts"])
    .where("id", "=", f.id)
    .where("leaseToken", "=", f.token)
    .where("leaseUntil", ">", sql<Date>`clock_timestamp()`)
    .executeTakeFirst();
  return row ?? null;
}

/** The outcome of one delivery, fenced by the claim. False: the lease was lost, nothing written. */
export async function settleWebhook(
  f: WebhookFence,
  outcome: {
    state: "delivered" | "dead" | "pending";
    lastError: string | null;
    lastStatus: number | null;
    retryInMs?: number;
  },
): Promise<boolean> {
  const { numUpdatedRows } = await db()
    .updateTable("ap_webhook")
    .set((eb) => ({
      state: outcome.state,
      attempts: eb("attempts", "+", 1),
      lastError: outcome.lastError,
      lastStatus: outcome.lastStatus,
      nextAt:
        outcome.state === "pending"
          ? sql<Date>`clock_timestamp() + make_interval(secs => ${(outcome.retryInMs ?? 0) / 1000})`
          : null,
      deliveredAt: outcome.state === "delivered" ? sql<Date>`clock_timestamp()` : null,
      leaseOwner: null,
      leaseToken: null,
      leaseUntil: null,
      updatedAt: sql<Date>`clock_timestamp()`,
    }))
    .where("id", "=", f.id)
    .where("leaseToken", "=", f.token)
    .where("leaseUntil", ">", sql<Date>`clock_timestamp()`)
    .where("state", "=", f.state)
    .executeTakeFirstOrThrow();
  return numUpdatedRows > 0n;
}

/** Milliseconds until the earliest retry is due; a waiting row wakes the loop when its run ends (lib/tasks/emit-task.ts). */
export async function nextWebhookDueMs(): Promise<number | null> {
  // A template: the webhook loop asks on every idle tick.
  const {
    rows: [row],
  } = await sql<{ ms: number | null }>`
    SELECT (extract(epoch FROM (min("nextAt") - now())) * 1000)::float8 AS ms
    FROM "ap_webhook" WHERE state = 'pending'`.execute(db());
  return row?.ms === null || row?.ms === undefined ? null : Math.max(0, row.ms);
}
