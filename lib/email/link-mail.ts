import { randomUUID } from "node:crypto";
import { env } from "@/lib/config/env";
import { escapeHtml, publicBaseUrl } from "./message";
import { sendEmail } from "./transport";

/** The words of a one-link account email, in the reader's language. */
export interface LinkMailWords {
  subject: string;
  lead: string;
  action: string;
  /** Under the link: how long it works, or why the mail came. */
  note: string;
}

/**
 * An account email that carries one link (password reset, address verification), sent at once through the notice
 * transport rather than queued: the person is waiting for it. `kind` names the Message-ID (`<kind.uuid@host>`).
 */
export async function sendLinkMail(to: string, words: LinkMailWords, url: string, kind: string): Promise<void> {
  const text = [words.lead, "", `${words.action}: ${url}`, "", words.note, ""].join("\n");
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(words.subject)}</title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #0f172a;">
<p>${escapeHtml(words.lead)}</p>
<p><a href="${escapeHtml(url)}">${escapeHtml(words.action)}</a></p>
<p style="font-size: 12px; color: #64748b;">${escapeHtml(words.note)}</p>
</body></html>
`;
  const host = new URL(publicBaseUrl()).hostname || "herald.invalid";
  const outcome = await sendEmail({
    from: env("HERALD_EMAIL_FROM"),
    to,
    subject: words.subject,
    text,
    html,
    messageId: `<${kind}.${randomUUID()}@${host}>`,
    headers: { "Auto-Submitted": "auto-generated" },
  });
  if (!outcome.ok) throw new Error(`${kind} email not sent (${outcome.error})`);
}
