import { getDb } from "@/lib/db/client";
import type { VerificationMail } from "@/lib/auth/verify-mail";
import { sendLinkMail } from "@/lib/email/link-mail";
import { emailAvailable } from "@/lib/settings/queries";

const WORDS = {
  en: {
    subject: "Herald: confirm your email address",
    lead: "Someone (hopefully you) created a Herald account with this address, or asked to confirm it.",
    action: "Confirm this address",
    note: "Herald emails notices only to a confirmed address. If this was not you, ignore this email: nothing will be sent here.",
  },
  zh: {
    subject: "Herald：确认你的邮箱地址",
    lead: "有人（希望是你）用这个地址注册了 Herald 账户，或请求确认这个地址。",
    action: "确认此地址",
    note: "Herald 只向已确认的地址发送通知邮件。如果不是你本人操作，请忽略这封邮件：不会再向此地址发送任何内容。",
  },
} as const;

/**
 * The address-verification email, sent at once through the notice transport
 * (lib/email/transport.ts). The link is better-auth's signed one (valid for an
 * hour); opening it marks the address verified and lands on Herald.
 */
export async function sendVerificationEmail(mail: VerificationMail): Promise<void> {
  if (!emailAvailable()) return;
  const row = await getDb().user.findUnique({
    where: { id: mail.user.id },
    select: { language: true, emailVerified: true },
  });
  if (!row || row.emailVerified) return;
  const w = WORDS[row.language === "zh" ? "zh" : "en"];
  await sendLinkMail(mail.user.email, w, mail.url, "verify");
}
