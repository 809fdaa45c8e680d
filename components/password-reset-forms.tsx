"use client";

import Link from "next/link";
import { useRef, useState, type FormEvent, type ReactNode } from "react";
import { authClient } from "@/lib/auth/client";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "@/lib/contract/password";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useI18n } from "@/lib/client/i18n";
import type { MessageKey } from "@/lib/i18n/dictionaries";
import { HeraldMark } from "./icons";
import { LanguageSelect } from "./language-select";
import { PasswordField, passwordInputClass } from "./password-field";
import { Button } from "./ui/button";
import { InlineAlert } from "./ui/inline-alert";

const linkClass = "font-medium text-accent-text underline-offset-4 hover:underline";

function AuthPage({ title, lead, children }: { title: string; lead?: string; children: ReactNode }) {
  const { t } = useI18n();
  return (
    <div className="flex min-h-dvh flex-col">
      <div className="flex justify-end p-4">
        <LanguageSelect />
      </div>
      <main className="flex flex-1 items-start justify-center px-4 pt-4 pb-16 sm:items-center sm:pt-0">
        <div className="w-full max-w-sm">
          <div className="mb-8 flex flex-col items-center gap-3 text-center">
            <HeraldMark className="size-10" />
            <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
            {lead && <p className="text-sm text-muted">{lead}</p>}
          </div>
          <div className="space-y-4 rounded-2xl border border-border bg-surface p-6 shadow-sm">{children}</div>
          <p className="mt-6 text-center text-sm text-muted">
            <Link href="/sign-in" className={linkClass}>
              {t("backToSignIn")}
            </Link>
          </p>
        </div>
      </main>
    </div>
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
      const { error: failed } = await authClient.requestPasswordReset({ email, redirectTo: `${window.location.origin}/reset-password` });
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
      <AuthPage title={t("forgotTitle")}>
        <InlineAlert tone="warn" icon={false}>
          {t("resetEmailOff")}
        </InlineAlert>
      </AuthPage>
    );
  }
  return (
    <AuthPage title={t("forgotTitle")} lead={t("forgotLead")}>
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
    </AuthPage>
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
      <AuthPage title={t("resetTitle")}>
        <InlineAlert icon={false}>{t("resetInvalid")}</InlineAlert>
        <Link href="/forgot-password" className={linkClass}>
          {t("askNewLink")}
        </Link>
      </AuthPage>
    );
  }
  if (state === "done") {
    return (
      <AuthPage title={t("resetTitle")}>
        <p role="status" className="text-sm">
          {t("resetDone")}
        </p>
      </AuthPage>
    );
  }
  return (
    <AuthPage title={t("resetTitle")}>
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
    </AuthPage>
  );
}
