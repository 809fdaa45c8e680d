import { getDb } from "@/lib/db/client";
import type { PasswordResetMail } from "@/lib/auth/reset-mail";
import { sendLinkMail } from "@/lib/email/link-mail";
import { emailAvailable } from "@/lib/settings/queries";

const WORDS = {
  en: {
    subject: "Herald: reset your password",
    lead: "Someone (hopefully you) asked to reset the password of your Herald account.",
    action: "Choose a new password",
    note: "The link works once and for one hour. If you did not ask for it, ignore this email: your password stays as it is.",
  },
  zh: {
    subject: "Herald：重置密码",
    lead: "有人（希望是你）请求重置你的 Herald 账户密码。",
    action: "设置新密码",
    note: "此链接只能使用一次，一小时内有效。如果不是你本人请求，请忽略这封邮件，你的密码不会改变。",
  },
} as const;

/**
 * The password-reset email, sent at once through the notice transport
 * (lib/email/transport.ts) rather than queued: the person is waiting on the
 * forgot-password page, and the link expires within the hour anyway. The
 * link is better-auth's; it lands on /reset-password?token=… (same origin).
 */
export async function sendPasswordResetEmail(mail: PasswordResetMail): Promise<void> {
  if (!emailAvailable()) return;
  const row = await getDb().user.findUnique({ where: { id: mail.user.id }, select: { language: true } });
  const w = WORDS[row?.language === "zh" ? "zh" : "en"];
  await sendLinkMail(mail.user.email, w, mail.url, "reset");
}
