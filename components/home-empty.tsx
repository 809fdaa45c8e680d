"use client";

import { useI18n } from "@/lib/client/i18n";
import { HeraldMark } from "./icons";

export function HomeEmpty() {
  const { t } = useI18n();
  return (
    <div className="flex flex-1 flex-col items-center justify-center gap-4 px-6 py-16 text-center">
      <HeraldMark className="size-12" />
      <h1 className="text-xl font-semibold tracking-tight sm:text-2xl">{t("homeTitle")}</h1>
      <p className="max-w-md text-sm text-muted">
        <span className="md:hidden">{t("homeLeadMobile")}</span>
        <span className="hidden md:inline">{t("homeLead")}</span>
      </p>
    </div>
  );
}
