import nodemailer from "nodemailer";
import { env } from "@/lib/config/env";
import { log } from "@/lib/util/log";
import { isPermanentSmtpFailure, type SendOutcome } from "./state";
import type { NoticeEmail } from "./message";

/**
 * One SMTP transport per process. Timeouts are well inside the lease
 * (HERALD_NOTIFY_LEASE_MS): an answer that arrives after the lease expired is
 * dropped, and the row is sent again by the next claim.
 */
type Transport = ReturnType<typeof nodemailer.createTransport>;
const g = globalThis as unknown as { heraldSmtp?: { url: string; transport: Transport } };

function transport(): Transport {
  const url = env("SMTP_URL");
  if (!url) throw new Error("SMTP_URL is not set");
  if (g.heraldSmtp?.url !== url) {
    const budget = Math.max(1_000, Math.floor(env("HERALD_NOTIFY_LEASE_MS") / 3));
    g.heraldSmtp = {
      url,
      transport: nodemailer.createTransport({
        url,
        connectionTimeout: Math.min(10_000, budget),
        greetingTimeout: Math.min(10_000, budget),
        socketTimeout: Math.min(30_000, budget),
      } as Parameters<typeof nodemailer.createTransport>[0]),
    };
  }
  return g.heraldSmtp.transport;
}

/** SMTP reply text can name hosts and addresses: the stored error keeps only the code and a short class. */
function describe(err: { responseCode?: number; code?: string; message?: string }): string {
  if (typeof err.responseCode === "number") return `SMTP ${err.responseCode}`;
  return err.code ? `SMTP ${err.code}` : "SMTP connection failed";
}

/** What the transport sends: a notice email, or any other host email (the password reset). */
export type OutgoingEmail = Pick<NoticeEmail, "from" | "to" | "subject" | "text" | "html" | "messageId" | "headers">;

export async function sendEmail(mail: OutgoingEmail): Promise<SendOutcome> {
  try {
    await transport().sendMail({
      from: mail.from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      messageId: mail.messageId,
      headers: mail.headers,
    });
    return { ok: true };
  } catch (err) {
    const e = err as { responseCode?: number; code?: string; message?: string };
    // The reply text often names the recipient: the logger masks addresses in it.
    log("email").warn({ reason: describe(e), err }, "send failed");
    return { ok: false, permanent: isPermanentSmtpFailure(e), error: describe(e) };
  }
}
