"use client";

import Link from "next/link";
import { useRef, useState, type FormEvent, type ReactNode } from "react";
import { authClient } from "@/lib/auth/client";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "@/lib/contract/password";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useI18n } from "@/lib/client/i18n";
import type { MessageKey } from "@/lib/i18n/dictionaries";
import { AUTH_CARD, AUTH_LINK, AuthPage } from "./auth-page";
import { PasswordField, passwordInputClass } from "./password-field";
import { Button } from "./ui/button";
import { InlineAlert } from "./ui/inline-alert";

function ResetPage({ title, lead, children }: { title: string; lead?: string; children: ReactNode }) {
  const { t } = useI18n();
  return (
    <AuthPage
      title={title}
      lead={lead}
      footer={
        <Link href="/sign-in" className={AUTH_LINK}>
          {t("backToSignIn")}
        </Link>
      }
    >
      <div className={AUTH_CARD}>{children}</div>
    </AuthPage>
  );
}

/** /forgot-password: asks better-auth to mail a one-time link (lib/commands/send-password-reset.ts). */
export function ForgotPasswordForm({ emailAvailable }: { emailAvailable: boolean }) {
  const { t } = useI18n();
  const hydrated = useHydrated();
  const [state, setState] = useState<"idle" | "sending" | "sent">("idle");
  const [error, setError] = useState<MessageKey | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get("email") ?? "").trim();
    if (!/^[^\s@]+@[^\s@]+$/.test(email)) {
      setError("errInvalidEmail");
      return;
    }
    setError(null);
    setState("sending");
    try {
      const { error: failed } = await authClient.requestPasswordReset({
        email,
        redirectTo: `${window.location.origin}/reset-password`,
      });
      if (failed) {
        setError(failed.status === 429 ? "errTooMany" : "errNetwork");
        setState("idle");
        return;
      }
      setState("sent");
    } catch {
      setError("errNetwork");
      setState("idle");
    }
  }

  if (!emailAvailable) {
    return (
      <ResetPage title={t("forgotTitle")}>
        <InlineAlert tone="warn" icon={false}>
          {t("resetEmailOff")}
        </InlineAlert>
      </ResetPage>
    );
  }
  return (
    <ResetPage title={t("forgotTitle")} lead={t("forgotLead")}>
      {state === "sent" ? (
        <p role="status" className="text-sm">
          {t("resetLinkSent")}
        </p>
      ) : (
        <form noValidate onSubmit={onSubmit} className="space-y-4" aria-busy={state === "sending"}>
          {error && <InlineAlert icon={false}>{t(error)}</InlineAlert>}
          <div className="space-y-1.5">
            <label htmlFor="forgot-email" className="block text-sm font-medium">
              {t("email")}
            </label>
            <input
              id="forgot-email"
              name="email"
              type="email"
              inputMode="email"
              autoComplete="username"
              autoCapitalize="none"
              spellCheck={false}
              required
              readOnly={!hydrated}
              aria-invalid={error === "errInvalidEmail" || undefined}
              className={passwordInputClass}
            />
          </div>
          <Button type="submit" variant="primary" size="xl" block disabled={state === "sending" || !hydrated}>
            {state === "sending" ? t("sendingResetLink") : t("sendResetLink")}
          </Button>
        </form>
      )}
    </ResetPage>
  );
}

/** /reset-password?token=…: better-auth's link lands here (or with ?error=INVALID_TOKEN). */
export function ResetPasswordForm({ token }: { token: string | null }) {
  const { t } = useI18n();
  const hydrated = useHydrated();
  const ref = useRef<HTMLInputElement>(null);
  const [state, setState] = useState<"idle" | "saving" | "done" | "invalid">(token ? "idle" : "invalid");
  const [error, setError] = useState<MessageKey | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const newPassword = String(new FormData(event.currentTarget).get("newPassword") ?? "");
    if (newPassword.length < MIN_PASSWORD_LENGTH || newPassword.length > MAX_PASSWORD_LENGTH) {
      setError(newPassword.length < MIN_PASSWORD_LENGTH ? "errPasswordShort" : "errPasswordLong");
      ref.current?.focus();
      return;
    }
    setError(null);
    setState("saving");
    try {
      const { error: failed } = await authClient.resetPassword({ newPassword, token: token ?? "" });
      if (!failed) return setState("done");
      if (failed.code === "PASSWORD_TOO_COMMON") setError("errPasswordCommon");
      else if (failed.code === "INVALID_TOKEN") return setState("invalid");
      else setError(failed.status === 429 ? "errTooMany" : "errValidation");
      setState("idle");
      ref.current?.focus();
    } catch {
      setError("errNetwork");
      setState("idle");
    }
  }

  if (state === "invalid") {
    return (
      <ResetPage title={t("resetTitle")}>
        <InlineAlert icon={false}>{t("resetInvalid")}</InlineAlert>
        <Link href="/forgot-password" className={AUTH_LINK}>
          {t("askNewLink")}
        </Link>
      </ResetPage>
    );
  }
  if (state === "done") {
    return (
      <ResetPage title={t("resetTitle")}>
        <p role="status" className="text-sm">
          {t("resetDone")}
        </p>
      </ResetPage>
    );
  }
  return (
    <ResetPage title={t("resetTitle")}>
      <form noValidate onSubmit={onSubmit} className="space-y-4" aria-busy={state === "saving"}>
        {error && (
          <InlineAlert id="reset-error" icon={false}>
            {t(error)}
          </InlineAlert>
        )}
        <PasswordField
          ref={ref}
          label={t("newPassword")}
          name="newPassword"
          autoComplete="new-password"
          readOnly={!hydrated}
          invalid={error !== null}
          describedBy={error ? "reset-error" : undefined}
          hint={t("passwordPolicyHint")}
        />
        <Button type="submit" variant="primary" size="xl" block disabled={state === "saving" || !hydrated}>
          {t("setNewPassword")}
        </Button>
      </form>
    </ResetPage>
  );
}
