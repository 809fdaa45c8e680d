"use client";

import { useI18n } from "@/lib/client/i18n";
import { SignOutEverywhereButton } from "./sign-out-button";

/** Account settings. Language stays in the header, where every page has it. */
export function SettingsView() {
  const { t } = useI18n();
  return (
    <div className="mx-auto w-full max-w-2xl space-y-8 overflow-y-auto px-4 py-8">
      <section aria-labelledby="sessions-title" className="space-y-3">
        <h2 id="sessions-title" className="text-base font-semibold">
          {t("sessionsTitle")}
        </h2>
        <p className="text-sm text-muted">{t("sessionsLead")}</p>
        <SignOutEverywhereButton />
      </section>
    </div>
  );
}
