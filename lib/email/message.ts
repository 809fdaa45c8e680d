import { env } from "@/lib/config/env";
import { formatMoment, usableTimeZone } from "@/lib/contract/clock";
import { unsubscribeToken } from "./unsubscribe";

/**
 * One notice as an email. Everything in it is host text (the notice sentence is
 * written by lib/delivery from committed facts), but titles come from users, so
 * the HTML part escapes every value and headers carry no control characters.
 */

export function publicBaseUrl(): string {
  return (env("BETTER_AUTH_URL") ?? `http://localhost:${env("PORT")}`).replace(/\/+$/, "");
}

/**
 * Deterministic per notice: a resend after a crash between the server's 250
 * and our commit carries the same id, and mail clients show one message.
 */
export function noticeMessageId(noticeId: string): string {
  return `<notice.${noticeId}@${new URL(publicBaseUrl()).hostname || "herald.invalid"}>`;
}

export interface NoticeEmailInput {
  noticeId: string;
  conversationId: string;
  userId: string;
  to: string;
  userName: string | null;
  language: string | null;
  timeZone: string | null;
  taskTitle: string;
  text: string;
  dueAt: Date | null;
}

export interface NoticeEmail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  headers: Record<string, string>;
  links: { conversation: string; unsubscribe: string; oneClick: string };
}

const WORDS = {
  en: {
    subject: (title: string) => `Herald: ${title}`,
    due: "Promised for",
    open: "Open the conversation",
    why: 'You get this email because "Email me when a promised result is due" is on in your Herald settings and no tab of Herald was open.',
    stop: "Stop these emails",
  },
  zh: {
    subject: (title: string) => `Herald：${title}`,
    due: "约定时间",
    open: "打开对话",
    why: "你收到这封邮件，是因为 Herald 设置中开启了“约定的结果到期时发邮件给我”，而当时没有打开 Herald 的标签页。",
    stop: "不再接收这类邮件",
  },
} as const;

/** No CR/LF or other controls in a header value, whatever the title holds. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what it removes
const oneLine = (s: string) => s.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, " ").trim();

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** The chips' format with the day always (an email is read later) and the zone named (it may be read elsewhere). */
function formatDue(due: Date, lang: "en" | "zh", timeZone: string | null): string {
  const when = formatMoment(due, { lang, timeZone, date: "date", seconds: false });
  const zone = usableTimeZone(timeZone);
  return lang === "zh" ? `${when}（${zone}）` : `${when} (${zone})`;
}

export function buildNoticeEmail(n: NoticeEmailInput): NoticeEmail {
  const lang = n.language === "zh" ? "zh" : "en";
  const w = WORDS[lang];
  const base = publicBaseUrl();
  const token = unsubscribeToken(n.userId);
  const conversation = `${base}/c/${encodeURIComponent(n.conversationId)}#notice-${encodeURIComponent(n.noticeId)}`;
  const unsubscribe = `${base}/unsubscribe?token=${encodeURIComponent(token)}`;
  const oneClick = `${base}/api/email/unsubscribe?token=${encodeURIComponent(token)}`;
  const due = n.dueAt ? formatDue(n.dueAt, lang, n.timeZone) : null;

  const text = [
    n.text,
    ...(due ? ["", `${w.due}: ${due}`] : []),
    "",
    `${w.open}: ${conversation}`,
    "",
    "-- ",
    w.why,
    `${w.stop}: ${unsubscribe}`,
    "",
  ].join("\n");

  const html = `<!doctype html>
<html lang="${lang === "zh" ? "zh-CN" : "en"}"><head><meta charset="utf-8"><title>${escapeHtml(oneLine(n.taskTitle))}</title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #0f172a;">
<p>${escapeHtml(n.text)}</p>
${due ? `<p>${escapeHtml(w.due)}: ${escapeHtml(due)}</p>\n` : ""}<p><a href="${escapeHtml(conversation)}">${escapeHtml(w.open)}</a></p>
<hr>
<p style="font-size: 12px; color: #64748b;">${escapeHtml(w.why)} <a href="${escapeHtml(unsubscribe)}">${escapeHtml(w.stop)}</a></p>
</body></html>
`;

  return {
    from: env("HERALD_EMAIL_FROM"),
    to: n.to,
    subject: oneLine(w.subject(n.taskTitle)),
    text,
    html,
    messageId: noticeMessageId(n.noticeId),
    headers: {
      "List-Unsubscribe": `<${oneClick}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      "Auto-Submitted": "auto-generated",
    },
    links: { conversation, unsubscribe, oneClick },
  };
}
