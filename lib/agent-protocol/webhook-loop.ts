import { env } from "@/lib/config/env";
import { log } from "@/lib/util/log";
import type { LoopSpec } from "@/lib/fleet/loop";
import { deliverWebhook } from "./deliver-webhook";
import { claimWebhooks, nextWebhookDueMs, WEBHOOK_LOOP, type WebhookFence } from "./webhook-sql";

/** A lease outlives one delivery (the fetch's own timeout) with room to settle it. */
export const webhookLeaseMs = () => env("HERALD_AP_WEBHOOK_TIMEOUT_MS") + 30_000;

/**
 * The Agent Protocol webhook outbox loop. Woken when a run ends (a task's
 * `task.updated` in an ended state, an interrupt taking a task over); the poll
 * is only the fallback. Retries come due at their nextAt.
 */
export function webhookLoop(workerId: string): LoopSpec<WebhookFence> {
  return {
    name: WEBHOOK_LOOP,
    concurrency: env("HERALD_NOTIFY_CONCURRENCY"),
    pollMs: env("HERALD_POLL_MS"),
    claim: (limit) => claimWebhooks(workerId, limit, webhookLeaseMs()),
    work: (f, stopping) => deliverWebhook(f, stopping),
    nextWakeMs: nextWebhookDueMs,
    log: (msg, err) => log("ap").error({ err }, msg),
  };
}
