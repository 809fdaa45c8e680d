import { log } from "@/lib/util/log";

/**
 * Who sends the password-reset email. lib/auth sits below lib/email in the
 * layers (docs/architecture.md#layers), so the sender is handed in from above:
 * app/api/auth/[...all]/route.ts registers lib/commands/send-password-reset.ts.
 * Until one is registered a request is answered as usual and nothing is sent
 * (the forgot-password page says so when the server has no email).
 */
export interface PasswordResetMail {
  user: { id: string; email: string; name: string };
  /** better-auth's one-time link: /api/auth/reset-password/<token>?callbackURL=… */
  url: string;
}

type Mailer = (mail: PasswordResetMail) => Promise<void>;

const g = globalThis as unknown as { heraldResetMailer?: Mailer };

export function setPasswordResetMailer(mailer: Mailer): void {
  g.heraldResetMailer = mailer;
}

export async function sendPasswordResetMail(mail: PasswordResetMail): Promise<void> {
  const mailer = g.heraldResetMailer;
  if (!mailer) {
    log("auth").warn({ accountId: mail.user.id }, "password reset requested but no mailer is registered; nothing sent");
    return;
  }
  // A failed send must not tell the caller whether the address has an account.
  // The account's id, never its address or the link (the error's text is masked by the logger).
  await mailer(mail).catch((err: unknown) =>
    log("auth").warn({ accountId: mail.user.id, err }, "password reset email failed"),
  );
}
