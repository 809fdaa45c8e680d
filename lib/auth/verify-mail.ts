import { log } from "@/lib/util/log";

/**
 * Who sends the address-verification email; handed in from above as the
 * reset mail is (./reset-mail.ts): app/api/auth/[...all]/route.ts registers
 * lib/commands/send-verification-email.ts. Until one is registered nothing
 * is sent and the address stays unverified (no notice email reaches it).
 */
export interface VerificationMail {
  user: { id: string; email: string; name: string };
  /** better-auth's signed link: /api/auth/verify-email?token=…&callbackURL=… */
  url: string;
}

type Mailer = (mail: VerificationMail) => Promise<void>;

const g = globalThis as unknown as { heraldVerifyMailer?: Mailer };

export function setVerificationMailer(mailer: Mailer): void {
  g.heraldVerifyMailer = mailer;
}

/**
 * Not awaited by the caller's answer: sign-up should not wait on an SMTP
 * round trip, and a failed send must not fail the sign-up (the account can
 * ask again from Settings).
 */
export function sendVerificationMail(mail: VerificationMail): void {
  const mailer = g.heraldVerifyMailer;
  if (!mailer) return;
  void mailer(mail).catch((err: unknown) =>
    log("auth").warn({ accountId: mail.user.id, err }, "verification email failed"),
  );
}
