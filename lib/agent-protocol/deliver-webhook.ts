import { createHmac } from "node:crypto";
import { env } from "@/lib/config/env";
import { getDb } from "@/lib/db/client";
import { FetchError, safeFetch } from "@/lib/research/safe-fetch";
import { retryAfterOf } from "@/lib/util/backoff";
import { log } from "@/lib/util/log";
import { getRun, loadRun } from "./get-run";
import { getThreadState } from "./get-thread-state";
import { readClaimed, settleWebhook, type WebhookFence } from "./webhook-sql";

export const SIGNATURE_HEADER = "x-herald-signature";
/** The longest wait between deliveries, whatever the backoff or Retry-After says. */
const MAX_WAIT_MS = 3_600_000;

/**
 * `X-Herald-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. The secret
 * is the hex SHA-256 of the API key that created the run: the key's holder derives it, Herald
 * keeps only that hash (docs/api.md#webhooks).
 */
export function signWebhook(secret: string, body: string, unixSeconds: number): string {
  const v1 = createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex");
  return `t=${unixSeconds},v1=${v1}`;
}

/** LangGraph's webhook body: the run, its status and times, the thread's final values, and an error category. */
async function payloadOf(ownerId: string, threadId: string, runId: string): Promise<Record<string, unknown>> {
  const run = await getRun(ownerId, threadId, runId);
  const { task, row } = await loadRun(ownerId, threadId, runId);
  const values = (await getThreadState(ownerId, threadId)).values;
  return {
    ...run,
    run_started_at: (task.startedAt ?? row.createdAt).toISOString(),
    run_ended_at: (task.completedAt ?? task.updatedAt).toISOString(),
    webhook_sent_at: new Date().toISOString(),
    values,
    ...(run.status === "error" || run.status === "timeout" ? { error: task.error ?? run.status } : {}),
  };
}

function waitMs(attempts: number): number {
  const base = env("HERALD_AP_WEBHOOK_BACKOFF_MS");
  const step = Math.min(MAX_WAIT_MS, base * 2 ** Math.min(attempts, 20));
  return Math.round(step / 2 + Math.random() * (step / 2));
}

/** One delivery of a claimed row; its outcome is written under the claim's fence. */
export async function deliverWebhook(f: WebhookFence, stopping: AbortSignal): Promise<void> {
  const w = await readClaimed(f);
  if (!w) return;
  let outcome: Parameters<typeof settleWebhook>[1];
  try {
    const thread = await getDb().conversation.findFirst({
      where: { id: w.threadId, ownerId: w.ownerId, deletedAt: null },
      select: { id: true },
    });
    if (!thread) {
      outcome = { state: "dead", lastError: "thread_deleted", lastStatus: null };
    } else {
      const body = JSON.stringify(await payloadOf(w.ownerId, w.threadId, w.runId));
      const t = Math.floor(Date.now() / 1000);
      // Webhook URLs are the caller's choice: the fetcher's address rules apply, at delivery, on every attempt.
      const res = await safeFetch(w.url, {
        method: "POST",
        body,
        headers: { "content-type": "application/json", [SIGNATURE_HEADER]: signWebhook(w.secret, body, t) },
        accept: "*/*",
        maxRedirects: 0,
        maxBytes: 4096,
        timeoutMs: env("HERALD_AP_WEBHOOK_TIMEOUT_MS"),
        signal: stopping,
      });
      outcome = { state: "delivered", lastError: null, lastStatus: res.status };
    }
  } catch (err) {
    if (stopping.aborted) return; // the lease runs out; another worker delivers it
    const reason = err instanceof FetchError ? err.reason : "internal";
    const status = err instanceof FetchError ? (err.status ?? null) : null;
    log("ap").warn({ err, webhookId: w.id, reason }, "webhook delivery failed");
    const attempts = w.attempts + 1;
    if (reason === "address" || reason === "scheme" || attempts >= env("HERALD_AP_WEBHOOK_ATTEMPTS")) {
      outcome = { state: "dead", lastError: reason, lastStatus: status };
    } else {
      const asked = err instanceof FetchError ? retryAfterOf(err.headers) : null;
      outcome = {
        state: "pending",
        lastError: reason,
        lastStatus: status,
        retryInMs: Math.min(MAX_WAIT_MS, Math.max(waitMs(w.attempts), asked ?? 0)),
      };
    }
  }
  await settleWebhook(f, outcome);
}
