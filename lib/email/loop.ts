import { env } from "@/lib/config/env";
import type { LoopSpec } from "@/lib/workers/loop";
import { claimEmailLeases, EMAIL_LOOP, nextEmailDueMs, type EmailFence } from "./sql";
import { emailLeaseMs } from "./state";
import { sendNoticeEmail } from "./send-notice-email";

/** The email outbox loop (started only when SMTP_URL is set). A send is one SMTP round trip. */
export function emailLoop(workerId: string): LoopSpec<EmailFence> {
  const log = (msg: string, err?: unknown) => (err ? console.error(`[email] ${msg}`, err) : console.warn(`[email] ${msg}`));
  return {
    name: EMAIL_LOOP,
    concurrency: env("HERALD_NOTIFY_CONCURRENCY"),
    pollMs: env("HERALD_POLL_MS"),
    claim: (limit) => claimEmailLeases(workerId, limit, emailLeaseMs()),
    work: (fence, stopping) => sendNoticeEmail(fence, stopping, log),
    nextWakeMs: nextEmailDueMs,
    log,
  };
}
