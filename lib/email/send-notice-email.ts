import { transaction } from "@/lib/db/kysely";
import { awayMs, decideAfterSend, decideOnClaim, onStopping, type EmailDecision } from "./state";
import { asEmailMode } from "@/lib/settings/queries";
import { applyEmailPatch, lockClaimedEmail, type EmailFence } from "./sql";
import { buildNoticeEmail, type NoticeEmail } from "./message";
import { sendEmail } from "./transport";
import { testHooks } from "@/lib/util/test-hooks";

type Log = (msg: string, err?: unknown) => void;

/**
 * One claimed notice: decide (E2–E6) and commit, send outside any transaction,
 * then record what the server said (E7–E9) under the same lease. The attempt
 * is counted before the send, so a worker that dies mid-send still spends budget.
 */
export async function sendNoticeEmail(
  fence: EmailFence,
  stopping: AbortSignal,
  log: Log,
): Promise<EmailDecision["t"] | "lost"> {
  const first = await transaction(async (tx) => {
    const row = await lockClaimedEmail(tx, fence);
    if (!row) return null;
    if (stopping.aborted) {
      await applyEmailPatch(tx, fence, onStopping().patch);
      return { decision: onStopping(), mail: null, attempts: row.emailAttempts };
    }
    const decision = decideOnClaim({
      attempts: row.emailAttempts,
      lastError: row.emailError,
      noticeCreatedAt: row.createdAt,
      mode: row.emailNotices === null ? null : asEmailMode(row.emailNotices),
      verified: row.emailVerified === true,
      timed: row.deliveryMode === "at" || row.deliveryMode === "by",
      key: row.key,
      conversationLive: row.conversationLive,
      presenceAt: row.presenceAt,
      dbNow: row.dbNow,
      awayMs: awayMs(),
    });
    await applyEmailPatch(tx, fence, decision.patch);
    let mail: NoticeEmail | null = null;
    if (decision.t === "E6" && row.email) {
      mail = buildNoticeEmail({
        noticeId: row.id,
        conversationId: row.conversationId,
        userId: row.ownerId,
        to: row.email,
        userName: row.userName,
        language: row.language,
        timeZone: row.timeZone,
        taskTitle: row.taskTitle ?? "",
        text: row.text,
        dueAt: row.dueAt,
      });
    }
    if (decision.t === "E2") log(`dead letter: notice ${row.id} ${decision.patch.emailError ?? ""}`);
    return { decision, mail, attempts: decision.patch.emailAttempts ?? row.emailAttempts };
  });
  if (!first) return "lost";
  if (first.decision.t !== "E6" || !first.mail) return first.decision.t;

  const outcome = await sendEmail(first.mail);
  if (outcome.ok) await testHooks().afterEmailSend?.(fence.id);
  const after = decideAfterSend(first.attempts, outcome);
  const stored = await transaction(async (tx) => {
    const row = await lockClaimedEmail(tx, fence, ["sending"]);
    if (!row) return false;
    return applyEmailPatch(tx, fence, after.patch);
  });
  if (!stored) {
    // The lease ran out during the send: the next claim decides again (and may resend, same Message-ID).
    log(`lease lost after ${outcome.ok ? "sending" : "a failed send"} of notice ${fence.id}; result dropped`);
    return "lost";
  }
  if (after.t === "E9") log(`dead letter: notice ${fence.id} ${after.patch.emailError ?? ""}`);
  return after.t;
}
