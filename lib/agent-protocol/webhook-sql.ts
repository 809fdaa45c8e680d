import { getDb, queryRows } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client.ts";
import { TERMINAL_STATUSES } from "@/lib/contract/task";
import { sqlList } from "@/lib/db/sql-list";
import { fairPick, onlyRows } from "@/lib/limits/fair-claim";

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

const TERMINAL_SQL = sqlList([...TERMINAL_STATUSES, "input_required"]);

function due(alias: string): Prisma.Sql {
  const c = Prisma.raw(alias);
  return Prisma.sql`(${c}."leaseUntil" IS NULL OR ${c}."leaseUntil" < now())
    AND ((${c}.state = 'pending' AND ${c}."nextAt" <= now())
      OR (${c}.state = 'waiting' AND EXISTS (
        SELECT 1 FROM "ap_run" r JOIN "task" t ON t.id = r."taskId"
        WHERE r.id = ${c}."runId"
          AND (t.status IN (${TERMINAL_SQL})
            OR EXISTS (SELECT 1 FROM "ap_run" n WHERE n."taskId" = r."taskId" AND n."createdAt" > r."createdAt")))))`;
}

export interface WebhookFence {
  id: string;
  token: string;
  state: WebhookState;
}

export function claimWebhooksSql(
  workerId: string,
  limit: number,
  leaseMs: number,
  only: string[] | null = null,
): Prisma.Sql {
  const pick = fairPick({
    table: "ap_webhook",
    due: (a) => Prisma.sql`${due(a)} ${onlyRows(Prisma.raw(a), only)}`,
    order: Prisma.sql`c."nextAt" NULLS FIRST, c.id`,
    held: Prisma.sql`h."leaseToken" IS NOT NULL AND h."leaseUntil" > now()`,
    limit,
  });
  return Prisma.sql`
    UPDATE "ap_webhook" w
    SET "leaseOwner" = ${workerId}, "leaseToken" = gen_random_uuid()::text,
        "leaseUntil" = now() + make_interval(secs => ${leaseMs / 1000})
    WHERE w.id IN (${pick})
    RETURNING w.id, w."leaseToken" AS token, w.state`;
}

export async function claimWebhooks(workerId: string, limit: number, leaseMs: number): Promise<WebhookFence[]> {
  if (limit <= 0) return [];
  return queryRows<WebhookFence>(claimWebhooksSql(workerId, limit, leaseMs));
}

export interface ClaimedWebhook {
  id: string;
  ownerId: string;
  runId: string;
  threadId: string;
  url: string;
  secret: string;
  attempts: number;
}

export async function readClaimed(f: WebhookFence): Promise<ClaimedWebhook | null> {
  const [row] = await getDb().$queryRaw<ClaimedWebhook[]>`
    SELECT id, "ownerId", "runId", "threadId", url, secret, attempts FROM "ap_webhook"
    WHERE id = ${f.id} AND "leaseToken" = ${f.token} AND "leaseUntil" > clock_timestamp()`;
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
  const n = await getDb().$executeRaw`
    UPDATE "ap_webhook" SET
      state = ${outcome.state}, attempts = attempts + 1,
      "lastError" = ${outcome.lastError}, "lastStatus" = ${outcome.lastStatus},
      "nextAt" = CASE WHEN ${outcome.state}::text = 'pending' THEN clock_timestamp() + make_interval(secs => ${(outcome.retryInMs ?? 0) / 1000}) END,
      "deliveredAt" = CASE WHEN ${outcome.state}::text = 'delivered' THEN clock_timestamp() END,
      "leaseOwner" = NULL, "leaseToken" = NULL, "leaseUntil" = NULL, "updatedAt" = clock_timestamp()
    WHERE id = ${f.id} AND "leaseToken" = ${f.token} AND "leaseUntil" > clock_timestamp() AND state = ${f.state}`;
  return n > 0;
}

/** Milliseconds until the earliest retry is due; a waiting row wakes the loop when its run ends (lib/tasks/emit-task.ts). */
export async function nextWebhookDueMs(): Promise<number | null> {
  const [row] = await getDb().$queryRaw<{ ms: number | null }[]>`
    SELECT (extract(epoch FROM (min("nextAt") - now())) * 1000)::float8 AS ms FROM "ap_webhook" WHERE state = 'pending'`;
  return row?.ms === null || row?.ms === undefined ? null : Math.max(0, row.ms);
}
