"use client";

import { useEffect, useId, useMemo, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { authClient } from "@/lib/auth/client";
import { ResponseError, getSettings, patchSettings } from "@/lib/client/api";
import {
  disableNotify,
  enableNotify,
  notifyStore,
  watchNotifyState,
  type NotifyState,
} from "@/lib/client/browser-notify";
import { browserTimeZone, setAccountTimeZone } from "@/lib/client/time-zone";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useI18n } from "@/lib/client/i18n";
import {
  EMAIL_NOTICE_MODES,
  type EmailNoticeMode,
  type PublicSettings,
  type SettingsPatch,
} from "@/lib/contract/settings";
import type { MessageKey } from "@/lib/i18n/dictionaries";
import { AccountDataSection, ChangePasswordSection } from "./account-settings";
import { ApiKeysSection } from "./api-keys";
import { WebhookDeliveriesSection } from "./webhook-deliveries";
import { LanguageSelect } from "./language-select";
import { SignOutEverywhereButton } from "./sign-out-button";
import { Button } from "./ui/button";

const SETTINGS_KEY = ["settings"] as const;

const EMAIL_WORDS: Record<EmailNoticeMode, MessageKey> = {
  off: "emailNoticesOff",
  timed: "emailNoticesTimed",
  all: "emailNoticesAll",
};

const NOTIFY_WORDS: Record<NotifyState, MessageKey> = {
  on: "notifyStateOn",
  off: "notifyStateOff",
  blocked: "notifyStateBlocked",
  unsupported: "notifyStateUnsupported",
};

const selectClass =
  "h-9 min-w-0 flex-1 rounded-lg border border-border bg-surface px-2 text-sm text-fg hover:border-border-strong disabled:opacity-60 sm:flex-none sm:w-72";

function useSettings() {
  const qc = useQueryClient();
  const query = useQuery({ queryKey: SETTINGS_KEY, queryFn: ({ signal }) => getSettings(signal) });
  const mutation = useMutation({
    mutationFn: (patch: SettingsPatch) => patchSettings(patch),
    onSuccess: (saved) => {
      qc.setQueryData<PublicSettings>(SETTINGS_KEY, saved);
      setAccountTimeZone(saved.timeZone);
    },
  });
  return { settings: query.data, mutation };
}

function TimeZoneRow({
  value,
  disabled,
  onChange,
}: {
  value: string;
  disabled: boolean;
  onChange: (zone: string) => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const hydrated = useHydrated();
  const zones = useMemo(() => {
    const all = hydrated && typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
    const browser = hydrated ? browserTimeZone() : undefined;
    return [...new Set([value, ...(browser ? [browser] : []), "UTC", ...all])];
  }, [hydrated, value]);
  const device = hydrated ? browserTimeZone() : undefined;
  // A device in another zone (travel, a second computer) is offered its own in one click.
  const differs = !disabled && device !== undefined && device !== value;
  return (
    <div className="space-y-1">
      <div className="flex items-center gap-3">
        <label htmlFor={id} className="w-28 shrink-0 text-sm font-medium">
          {t("settingsTimeZone")}
        </label>
        <select
          id={id}
          value={value}
          disabled={disabled}
          onChange={(e) => onChange(e.target.value)}
          className={selectClass}
        >
          {zones.map((zone) => (
            <option key={zone} value={zone}>
              {zone}
            </option>
          ))}
        </select>
      </div>
      <p className="text-xs text-muted sm:pl-31">{t("settingsTimeZoneHint")}</p>
      {differs && (
        <div className="flex flex-wrap items-center gap-2 sm:pl-31" data-testid="device-zone">
          <p className="text-xs text-muted">{t("settingsZoneDiffers", { zone: device, account: value })}</p>
          <Button type="button" variant="secondary" size="sm" onClick={() => onChange(device)}>
            {t("settingsUseDeviceZone", { zone: device })}
          </Button>
        </div>
      )}
    </div>
  );
}

function BrowserNotifyRow() {
  const { t } = useI18n();
  const id = useId();
  const hintId = useId();
  const hydrated = useHydrated();
  const state = notifyStore.useStore();
  useEffect(() => watchNotifyState(), []);
  const unavailable = !hydrated || state === "unsupported" || state === "blocked";
  return (
    <div className="space-y-1">
      <div className="flex items-start gap-3">
        <input
          id={id}
          type="checkbox"
          className="mt-0.5 size-4 shrink-0 accent-accent"
          checked={state === "on"}
          disabled={unavailable}
          aria-describedby={hintId}
          onChange={(e) => {
            // Permission is asked only here, from the user's own click.
            if (e.target.checked) void enableNotify();
            else disableNotify();
          }}
        />
        <label htmlFor={id} className="text-sm font-medium">
          {t("notifyBrowser")}
        </label>
      </div>
      <p id={hintId} className="pl-7 text-xs text-muted">
        <span data-testid="notify-state" data-state={hydrated ? state : undefined} className="font-medium text-fg">
          {hydrated ? t(NOTIFY_WORDS[state]) : ""}
        </span>{" "}
        {t("notifyBrowserHint")}
      </p>
    </div>
  );
}

/**
 * Notice email goes to a verified address only (the server refuses turning it
 * on before): better-auth's own verification mail, sent again on request.
 */
function VerifyEmailRow({ email }: { email: string }) {
  const { t } = useI18n();
  const [state, setState] = useState<"idle" | "pending" | "sent" | "failed">("idle");
  async function send() {
    setState("pending");
    try {
      const { error } = await authClient.sendVerificationEmail({ email, callbackURL: "/settings" });
      setState(error ? "failed" : "sent");
    } catch {
      setState("failed");
    }
  }
  return (
    <div
      className="space-y-1.5 rounded-lg border border-warn/40 bg-warn-soft p-3 text-sm"
      data-testid="email-unverified"
    >
      <p>{t("emailUnverified")}</p>
      <Button variant="secondary" size="xs" disabled={state === "pending"} onClick={() => void send()}>
        {t("sendVerificationEmail")}
      </Button>
      <p role="status" className="min-h-5 text-xs">
        {state === "sent" ? (
          t("verificationSent", { email })
        ) : state === "failed" ? (
          <span className="text-danger">{t("verificationFailed")}</span>
        ) : (
          ""
        )}
      </p>
    </div>
  );
}

function EmailRow({
  settings,
  onChange,
  disabled,
  email,
}: {
  settings: PublicSettings | undefined;
  onChange: (mode: EmailNoticeMode) => void;
  disabled: boolean;
  email: string;
}) {
  const { t } = useI18n();
  const id = useId();
  const hintId = useId();
  const available = settings?.emailAvailable ?? false;
  return (
    <div className="space-y-1">
      <div className="flex flex-col gap-1.5 sm:flex-row sm:items-center sm:gap-3">
        <label htmlFor={id} className="text-sm font-medium sm:flex-1">
          {t("emailNotices")}
        </label>
        <select
          id={id}
          value={available ? (settings?.emailNotices ?? "off") : "off"}
          disabled={disabled || !available}
          aria-describedby={hintId}
          onChange={(e) => onChange(e.target.value as EmailNoticeMode)}
          className={selectClass}
        >
          {EMAIL_NOTICE_MODES.map((mode) => (
            <option key={mode} value={mode}>
              {t(EMAIL_WORDS[mode])}
            </option>
          ))}
        </select>
      </div>
      <p id={hintId} className="text-xs text-muted" data-testid="email-hint">
        {settings && !available ? t("emailUnavailable") : t("emailNoticesHint")}
      </p>
      {available && settings && !settings.emailVerified && <VerifyEmailRow email={email} />}
    </div>
  );
}

/** Account settings: language and time zone (kept on the account), how Herald reaches you when away, sessions. */
export function SettingsView({ email }: { email: string }) {
  const { t } = useI18n();
  const { settings, mutation } = useSettings();
  const save = (patch: SettingsPatch) => mutation.mutate(patch);
  return (
    <div className="mx-auto w-full max-w-2xl space-y-8 overflow-y-auto px-4 py-8">
      {/* Not a named region: its name would contain "Language" and match that control's label. */}
      <section className="space-y-4">
        <h2 className="text-base font-semibold">{t("settingsGeneralTitle")}</h2>
        <LanguageSelect labelled />
        <TimeZoneRow
          value={settings?.timeZone ?? "UTC"}
          disabled={!settings}
          onChange={(timeZone) => save({ timeZone })}
        />
      </section>

      <section aria-labelledby="away-title" className="space-y-4">
        <div className="space-y-1">
          <h2 id="away-title" className="text-base font-semibold">
            {t("settingsAwayTitle")}
          </h2>
          <p className="text-sm text-muted">{t("settingsAwayLead")}</p>
        </div>
        <BrowserNotifyRow />
        <EmailRow
          settings={settings}
          email={email}
          disabled={!settings || mutation.isPending}
          onChange={(emailNotices) => save({ emailNotices })}
        />
        <p role="status" className="min-h-5 text-sm" data-testid="settings-status">
          {mutation.isError ? (
            <span className="text-danger">
              {mutation.error instanceof ResponseError && mutation.error.code === "email_unverified"
                ? t("emailUnverified")
                : t("settingsSaveFailed")}
            </span>
          ) : mutation.isSuccess ? (
            t("settingsSaved")
          ) : (
            ""
          )}
        </p>
      </section>

      <ApiKeysSection />
      <WebhookDeliveriesSection />

      <section aria-labelledby="sessions-title" className="space-y-3">
        <h2 id="sessions-title" className="text-base font-semibold">
          {t("sessionsTitle")}
        </h2>
        <p className="text-sm text-muted">{t("sessionsLead")}</p>
        <SignOutEverywhereButton />
      </section>

      <ChangePasswordSection />
      <AccountDataSection />
    </div>
  );
}
