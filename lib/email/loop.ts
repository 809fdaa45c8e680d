import { env } from "@/lib/config/env";
import { log as logger } from "@/lib/util/log";
import type { LoopSpec } from "@/lib/fleet/loop";
import { claimEmailLeases, EMAIL_LOOP, nextEmailDueMs, type EmailFence } from "./sql";
import { emailLeaseMs } from "./state";
import { sendNoticeEmail } from "./send-notice-email";

/** The email outbox loop (started only when SMTP_URL is set). A send is one SMTP round trip. */
export function emailLoop(workerId: string): LoopSpec<EmailFence> {
  // Through the structured logger: a send's error can carry the recipient, which it masks.
  const log = (msg: string, err?: unknown) => (err ? logger("email").error({ err }, msg) : logger("email").warn(msg));
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
