"use client";

import { useRef, useState, type FormEvent } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { authClient } from "@/lib/auth/client";
import { ResponseError, deleteAccount } from "@/lib/client/api";
import { announceSignOut } from "@/lib/client/session-sync";
import { stopFeed } from "@/lib/client/feed";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useI18n } from "@/lib/client/i18n";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "@/lib/contract/password";
import type { MessageKey } from "@/lib/i18n/dictionaries";
import { API_KEYS_QUERY } from "./api-keys";
import { PasswordField } from "./password-field";
import { Button, buttonClass } from "./ui/button";
import { InlineAlert } from "./ui/inline-alert";

/** Settings → Password: better-auth's change-password, signing the other devices out. */
export function ChangePasswordSection() {
  const { t } = useI18n();
  const hydrated = useHydrated();
  const qc = useQueryClient();
  const formRef = useRef<HTMLFormElement>(null);
  const [pending, setPending] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; key: MessageKey; field?: "current" | "new" } | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const currentPassword = String(data.get("currentPassword") ?? "");
    const newPassword = String(data.get("newPassword") ?? "");
    if (!currentPassword) return setResult({ ok: false, key: "errWrongPassword", field: "current" });
    if (newPassword.length < MIN_PASSWORD_LENGTH)
      return setResult({ ok: false, key: "errPasswordShort", field: "new" });
    if (newPassword.length > MAX_PASSWORD_LENGTH) return setResult({ ok: false, key: "errPasswordLong", field: "new" });
    setPending(true);
    setResult(null);
    try {
      const { error } = await authClient.changePassword({ currentPassword, newPassword, revokeOtherSessions: true });
      if (!error) {
        formRef.current?.reset();
        setResult({ ok: true, key: "passwordChanged" });
        // The server revoked every API key with the old password.
        void qc.invalidateQueries({ queryKey: API_KEYS_QUERY });
      } else if (error.code === "PASSWORD_TOO_COMMON") setResult({ ok: false, key: "errPasswordCommon", field: "new" });
      else if (error.code === "INVALID_PASSWORD") setResult({ ok: false, key: "errWrongPassword", field: "current" });
      else if (error.code === "PASSWORD_TOO_SHORT") setResult({ ok: false, key: "errPasswordShort", field: "new" });
      else setResult({ ok: false, key: error.status === 429 ? "errTooMany" : "errValidation" });
    } catch {
      setResult({ ok: false, key: "errNetwork" });
    } finally {
      setPending(false);
    }
  }

  return (
    <section aria-labelledby="password-title" className="space-y-3">
      <h2 id="password-title" className="text-base font-semibold">
        {t("passwordSection")}
      </h2>
      <form ref={formRef} noValidate onSubmit={onSubmit} className="max-w-sm space-y-3" aria-busy={pending}>
        <PasswordField
          label={t("currentPassword")}
          name="currentPassword"
          autoComplete="current-password"
          readOnly={!hydrated}
          invalid={result?.field === "current"}
          describedBy={result?.field === "current" ? "password-result" : undefined}
        />
        <PasswordField
          label={t("newPassword")}
          name="newPassword"
          autoComplete="new-password"
          readOnly={!hydrated}
          invalid={result?.field === "new"}
          describedBy={result?.field === "new" ? "password-result" : undefined}
          hint={t("passwordPolicyHint")}
        />
        <Button type="submit" variant="secondary" size="lg" disabled={pending || !hydrated}>
          {t("changePassword")}
        </Button>
        <div id="password-result" role="status" className="min-h-5 text-sm">
          {result && (result.ok ? t(result.key) : <span className="text-danger">{t(result.key)}</span>)}
        </div>
      </form>
    </section>
  );
}

/** Settings → Your data (JSON download) and Delete account (asks for the password, says what goes). */
export function AccountDataSection() {
  const { t } = useI18n();
  const hydrated = useHydrated();
  const [confirming, setConfirming] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<MessageKey | null>(null);
  const passwordRef = useRef<HTMLInputElement>(null);

  async function onDelete(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const password = String(new FormData(event.currentTarget).get("deletePassword") ?? "");
    if (!password) {
      setError("errWrongPassword");
      passwordRef.current?.focus();
      return;
    }
    setPending(true);
    setError(null);
    try {
      await deleteAccount(password);
    } catch (err) {
      setPending(false);
      setError(
        err instanceof ResponseError && err.field === "password"
          ? "errWrongPassword"
          : err instanceof ResponseError && err.status === 429
            ? "errTooMany"
            : "errNetwork",
      );
      passwordRef.current?.focus();
      return;
    }
    stopFeed();
    announceSignOut();
    window.location.assign("/sign-in");
  }

  return (
    <>
      <section aria-labelledby="data-title" className="space-y-3">
        <div className="space-y-1">
          <h2 id="data-title" className="text-base font-semibold">
            {t("dataSection")}
          </h2>
          <p className="text-sm text-muted">{t("exportLead")}</p>
        </div>
        <a
          href="/api/account/export"
          download="herald-export.json"
          className={buttonClass({ variant: "secondary", size: "lg" })}
        >
          {t("exportData")}
        </a>
      </section>

      <section aria-labelledby="delete-title" className="space-y-3">
        <div className="space-y-1">
          <h2 id="delete-title" className="text-base font-semibold text-danger">
            {t("deleteSection")}
          </h2>
          <p className="text-sm text-muted">{t("deleteLead")}</p>
        </div>
        {!confirming ? (
          <Button
            variant="danger-outline"
            size="lg"
            disabled={!hydrated}
            onClick={() => {
              setConfirming(true);
              requestAnimationFrame(() => passwordRef.current?.focus());
            }}
          >
            {t("deleteAccount")}
          </Button>
        ) : (
          <form
            noValidate
            onSubmit={onDelete}
            className="max-w-sm space-y-3 rounded-xl border border-danger/40 p-4"
            aria-busy={pending}
          >
            {error && (
              <InlineAlert id="delete-error" icon={false}>
                {t(error)}
              </InlineAlert>
            )}
            <PasswordField
              ref={passwordRef}
              label={t("confirmWithPassword")}
              name="deletePassword"
              autoComplete="current-password"
              invalid={error !== null}
              describedBy={error ? "delete-error" : undefined}
            />
            <div className="flex flex-wrap gap-2">
              <Button type="submit" variant="danger" size="lg" disabled={pending}>
                {pending ? t("deleting") : t("deleteForever")}
              </Button>
              <Button
                type="button"
                variant="secondary"
                size="lg"
                disabled={pending}
                onClick={() => (setConfirming(false), setError(null))}
              >
                {t("keepAccount")}
              </Button>
            </div>
          </form>
        )}
      </section>
    </>
  );
}
