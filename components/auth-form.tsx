"use client";

import Link from "next/link";
import { useId, useRef, useState, type FormEvent } from "react";
import { authClient } from "@/lib/auth/client";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, safeNextPath } from "@/lib/contract/password";
import { browserTimeZone } from "@/lib/client/time-zone";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useI18n } from "@/lib/client/i18n";
import type { MessageKey } from "@/lib/i18n/dictionaries";
import { AUTH_CARD, AUTH_LINK, AuthPage } from "./auth-page";
import { PasswordField, passwordInputClass } from "./password-field";
import { Button } from "./ui/button";
import { InlineAlert } from "./ui/inline-alert";

type Mode = "sign-in" | "sign-up";
type Field = "name" | "email" | "password";

interface FormError {
  key: MessageKey;
  vars?: Record<string, string>;
  field?: Field;
}

interface AuthErrorLike {
  code?: string;
  message?: string;
  status?: number;
}

/**
 * The sign-up body with this browser's zone, which the server stores as the
 * account's clock (lib/auth/auth.ts). better-auth's client types only its own
 * fields; the endpoint passes the rest to the hook.
 */
function withTimeZone<T extends object>(body: T): T {
  const timeZone = browserTimeZone();
  return timeZone ? ({ ...body, timeZone } as T) : body;
}

function mapAuthError(mode: Mode, error: AuthErrorLike): FormError {
  const code = error.code ?? "";
  if (code === "INVALID_EMAIL_OR_PASSWORD" || (mode === "sign-in" && error.status === 401)) {
    return { key: "errInvalidCredentials" };
  }
  if (code.startsWith("USER_ALREADY_EXISTS") || error.status === 422) return { key: "errUserExists", field: "email" };
  if (code === "PASSWORD_TOO_SHORT") return { key: "errPasswordShort", field: "password" };
  if (code === "PASSWORD_TOO_LONG") return { key: "errPasswordLong", field: "password" };
  if (code === "PASSWORD_TOO_COMMON") return { key: "errPasswordCommon", field: "password" };
  if (code === "INVALID_EMAIL") return { key: "errInvalidEmail", field: "email" };
  // better-auth's body validation ("[body.email] Invalid email address"): never shown raw.
  if (code === "VALIDATION_ERROR") {
    return /email/i.test(error.message ?? "") ? { key: "errInvalidEmail", field: "email" } : { key: "errValidation" };
  }
  if (error.status === 429) return { key: "errTooMany" };
  return { key: "errAuthGeneric", vars: { message: error.message || `HTTP ${error.status ?? "?"}` } };
}

function validate(mode: Mode, name: string, email: string, password: string): FormError | null {
  if (mode === "sign-up" && !name.trim()) return { key: "errNameRequired", field: "name" };
  if (!email.trim()) return { key: "errEmailRequired", field: "email" };
  if (!/^[^\s@]+@[^\s@]+$/.test(email.trim())) return { key: "errInvalidEmail", field: "email" };
  if (!password) return { key: "errPasswordRequired", field: "password" };
  if (mode === "sign-up" && password.length < MIN_PASSWORD_LENGTH)
    return { key: "errPasswordShort", field: "password" };
  if (mode === "sign-up" && password.length > MAX_PASSWORD_LENGTH) return { key: "errPasswordLong", field: "password" };
  return null;
}

const inputClass = passwordInputClass;

/**
 * Validates, signs up or in, and on success loads `next` in full; on an error it says which and focuses the field
 * it is about.
 */
function useAuthSubmit(mode: Mode, next: string | undefined) {
  const [error, setError] = useState<FormError | null>(null);
  const [pending, setPending] = useState(false);
  const nameRef = useRef<HTMLInputElement>(null);
  const emailRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);

  function fail(e: FormError) {
    setError(e);
    setPending(false);
    const ref =
      e.field === "name" ? nameRef : e.field === "email" ? emailRef : e.field === "password" ? passwordRef : null;
    ref?.current?.focus();
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (pending) return;
    const data = new FormData(event.currentTarget);
    const name = String(data.get("name") ?? "");
    const email = String(data.get("email") ?? "").trim();
    const password = String(data.get("password") ?? "");

    const invalid = validate(mode, name, email, password);
    if (invalid) return fail(invalid);

    setPending(true);
    setError(null);
    try {
      const result =
        mode === "sign-up"
          ? await authClient.signUp.email(withTimeZone({ name: name.trim(), email, password }))
          : await authClient.signIn.email({ email, password });
      if (result.error) return fail(mapAuthError(mode, result.error));
      // A full load: nothing cached in this tab may carry over to the new session.
      window.location.assign(safeNextPath(next));
    } catch {
      fail({ key: "errNetwork" });
    }
  }

  return { error, pending, onSubmit, fieldRefs: { nameRef, emailRef, passwordRef } };
}

/** Name (sign-up only), email and password, each marked invalid and tied to the error when it is about them. */
function AuthFields({
  isSignUp,
  error,
  errorId,
  nameRef,
  emailRef,
  passwordRef,
}: {
  isSignUp: boolean;
  error: FormError | null;
  errorId: string;
} & ReturnType<typeof useAuthSubmit>["fieldRefs"]) {
  const { t } = useI18n();
  const ids = { name: useId(), email: useId() };
  const hydrated = useHydrated();
  const describedBy = (field: Field) => (error?.field === field ? errorId : undefined);
  return (
    <>
      {isSignUp && (
        <div className="space-y-1.5">
          <label htmlFor={ids.name} className="block text-sm font-medium">
            {t("name")}
          </label>
          <input
            ref={nameRef}
            id={ids.name}
            name="name"
            type="text"
            autoComplete="name"
            required
            maxLength={100}
            readOnly={!hydrated}
            aria-invalid={error?.field === "name" || undefined}
            aria-describedby={describedBy("name")}
            className={inputClass}
          />
        </div>
      )}

      <div className="space-y-1.5">
        <label htmlFor={ids.email} className="block text-sm font-medium">
          {t("email")}
        </label>
        <input
          ref={emailRef}
          id={ids.email}
          name="email"
          type="email"
          inputMode="email"
          autoComplete={isSignUp ? "email" : "username"}
          autoCapitalize="none"
          spellCheck={false}
          required
          readOnly={!hydrated}
          aria-invalid={error?.field === "email" || undefined}
          aria-describedby={describedBy("email")}
          className={inputClass}
        />
      </div>

      <PasswordField
        ref={passwordRef}
        label={t("password")}
        name="password"
        autoComplete={isSignUp ? "new-password" : "current-password"}
        readOnly={!hydrated}
        invalid={error?.field === "password"}
        describedBy={describedBy("password")}
        hint={isSignUp ? t("passwordPolicyHint") : undefined}
      />
    </>
  );
}

/** Under the sign-in password: the reset link, or, without email, whom to ask. */
function ForgotPassword({ resetByEmail }: { resetByEmail: boolean }) {
  const { t } = useI18n();
  return resetByEmail ? (
    <p className="-mt-2 text-right text-sm">
      <Link href="/forgot-password" className="text-accent-text underline-offset-4 hover:underline">
        {t("forgotPassword")}
      </Link>
    </p>
  ) : (
    <p className="-mt-2 text-xs text-muted" data-testid="reset-by-operator">
      {t("emailOffReset")}
    </p>
  );
}

/** `next`: where a link that needed a session was going (a same-origin path; anything else lands on "/"). */
/** `resetByEmail`: the server can mail a reset link (SMTP_URL set); without it the sign-in form says whom to ask instead. */
export function AuthForm({
  mode,
  next,
  signedOutElsewhere = false,
  resetByEmail = true,
}: {
  mode: Mode;
  next?: string;
  signedOutElsewhere?: boolean;
  resetByEmail?: boolean;
}) {
  const { t } = useI18n();
  const errorId = useId();
  const hydrated = useHydrated();
  const { error, pending, onSubmit, fieldRefs } = useAuthSubmit(mode, next);
  const isSignUp = mode === "sign-up";
  const nextPath = safeNextPath(next);
  const otherHref =
    (isSignUp ? "/sign-in" : "/sign-up") + (nextPath !== "/" ? `?next=${encodeURIComponent(nextPath)}` : "");

  return (
    <AuthPage
      title={isSignUp ? t("signUpTitle") : t("signInTitle")}
      lead={isSignUp ? t("signUpLead") : t("signInLead")}
      footer={
        <>
          {isSignUp ? t("haveAccount") : t("noAccount")}{" "}
          <Link href={otherHref} className={AUTH_LINK}>
            {isSignUp ? t("signIn") : t("signUp")}
          </Link>
        </>
      }
    >
      <form noValidate onSubmit={onSubmit} className={AUTH_CARD} aria-busy={pending}>
        {error && (
          <InlineAlert id={errorId} icon={false}>
            {t(error.key, error.vars)}
          </InlineAlert>
        )}
        {!error && signedOutElsewhere && (
          <InlineAlert tone="info" icon={false}>
            {t("signedOutElsewhere")}
          </InlineAlert>
        )}

        <AuthFields isSignUp={isSignUp} error={error} errorId={errorId} {...fieldRefs} />
        {!isSignUp && <ForgotPassword resetByEmail={resetByEmail} />}

        <Button
          type="submit"
          variant="primary"
          size="xl"
          block
          disabled={pending || !hydrated}
          className="disabled:cursor-wait disabled:opacity-70"
        >
          {isSignUp ? t("signUp") : t("signIn")}
        </Button>
        {pending && (
          <p className="text-center text-xs text-muted" aria-live="polite">
            {isSignUp ? t("signingUp") : t("signingIn")}
          </p>
        )}
      </form>
    </AuthPage>
  );
}
