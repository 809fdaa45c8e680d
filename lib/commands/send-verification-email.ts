import { randomUUID } from "node:crypto";
import { env } from "@/lib/config/env";
import { getDb } from "@/lib/db/client";
import type { VerificationMail } from "@/lib/auth/verify-mail";
import { escapeHtml, publicBaseUrl } from "@/lib/email/message";
import { sendEmail } from "@/lib/email/transport";
import { emailAvailable } from "@/lib/settings/queries";

const WORDS = {
  en: {
    subject: "Herald: confirm your email address",
    lead: "Someone (hopefully you) created a Herald account with this address, or asked to confirm it.",
    action: "Confirm this address",
    why: "Herald emails notices only to a confirmed address. If this was not you, ignore this email: nothing will be sent here.",
  },
  zh: {
    subject: "Herald：确认你的邮箱地址",
    lead: "有人（希望是你）用这个地址注册了 Herald 账户，或请求确认这个地址。",
    action: "确认此地址",
    why: "Herald 只向已确认的地址发送通知邮件。如果不是你本人操作，请忽略这封邮件：不会再向此地址发送任何内容。",
  },
} as const;

/**
 * The address-verification email, sent at once through the notice transport
 * (lib/email/transport.ts). The link is better-auth's signed one (valid for an
 * hour); opening it marks the address verified and lands on Herald.
 */
export async function sendVerificationEmail(mail: VerificationMail): Promise<void> {
  if (!emailAvailable()) return;
  const row = await getDb().user.findUnique({ where: { id: mail.user.id }, select: { language: true, emailVerified: true } });
  if (!row || row.emailVerified) return;
  const w = WORDS[row.language === "zh" ? "zh" : "en"];
  const text = [w.lead, "", `${w.action}: ${mail.url}`, "", w.why, ""].join("\n");
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(w.subject)}</title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #0f172a;">
<p>${escapeHtml(w.lead)}</p>
<p><a href="${escapeHtml(mail.url)}">${escapeHtml(w.action)}</a></p>
<p style="font-size: 12px; color: #64748b;">${escapeHtml(w.why)}</p>
</body></html>
`;
  const host = new URL(publicBaseUrl()).hostname || "herald.invalid";
  const outcome = await sendEmail({
    from: env("HERALD_EMAIL_FROM"),
    to: mail.user.email,
    subject: w.subject,
    text,
    html,
    messageId: `<verify.${randomUUID()}@${host}>`,
    headers: { "Auto-Submitted": "auto-generated" },
  });
  if (!outcome.ok) throw new Error(`verification email not sent (${outcome.error})`);
}
