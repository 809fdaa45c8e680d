import type { Executor } from "@/lib/db/kysely";
import { queueNoticeEmailSql } from "./sql";
import { modesWanting } from "./state";

/**
 * E1 (lib/email/state.ts): called in the transaction that writes a notice, so
 * a notice and its place in the email outbox commit together. Decided by the
 * account's setting at that moment: a notice it did not want stays `none`, and
 * no later change of the setting reaches it. Whether this process has SMTP_URL
 * does not matter: any worker may write the notice, the email loop runs where
 * SMTP is configured (and E3 drops what waited too long for one).
 */
export async function queueNoticeEmail(
  tx: Executor,
  notice: { id: string; ownerId: string; key: string },
  task: { deliveryMode: string },
): Promise<boolean> {
  const timed = task.deliveryMode === "at" || task.deliveryMode === "by";
  return queueNoticeEmailSql(tx, notice.id, notice.ownerId, modesWanting({ timed, key: notice.key }));
}
