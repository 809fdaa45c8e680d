"use client";

import { useEffect, useState } from "react";
import { enableNotify, notifyStore, watchNotifyState, type NotifyState } from "@/lib/client/browser-notify";
import { useI18n } from "@/lib/client/i18n";
import { BellIcon } from "./icons";
import { Button } from "./ui/button";

/** Set once the offer was answered (either way): it is never made again in this browser. */
const ASKED_KEY = "herald.notify.asked";

function readAsked(): boolean {
  try {
    return window.localStorage.getItem(ASKED_KEY) === "1";
  } catch {
    return true;
  }
}

function rememberAsked(): void {
  try {
    window.localStorage.setItem(ASKED_KEY, "1");
  } catch {
    // Not remembered: without storage the browser could not keep the setting either.
  }
}

/**
 * Asked where it matters: a deadline is being set and this browser would not
 * tell the user when it passes. One click turns on the same setting as
 * Settings' "Notify me in this browser" (the browser then asks its own
 * question); the sentence says what happens otherwise. Answered once, either
 * way, it is not offered again.
 */
export function NotifyOffer() {
  const { t } = useI18n();
  const state = notifyStore.useStore();
  const [asked, setAsked] = useState(true);
  const [outcome, setOutcome] = useState<NotifyState | "dismissed" | null>(null);
  useEffect(() => {
    watchNotifyState();
    // eslint-disable-next-line react-hooks/set-state-in-effect -- localStorage is read after hydration, not during render
    setAsked(readAsked());
  }, []);

  const answer = (result: NotifyState | "dismissed") => {
    rememberAsked();
    setAsked(true);
    setOutcome(result);
  };
  if (outcome) {
    return (
      <p role="status" className="basis-full text-xs text-muted" data-testid="notify-offer-outcome">
        {outcome === "on" ? t("notifyOfferOn") : t("notifyOfferDeclined")}
      </p>
    );
  }
  if (asked || state !== "off") return null;
  return (
    <div
      data-testid="notify-offer"
      className="flex basis-full flex-wrap items-center gap-x-2 gap-y-1 rounded-lg bg-subtle px-2 py-1.5 text-xs text-fg"
    >
      <span className="flex min-w-0 basis-full items-start gap-1.5 sm:basis-0 sm:flex-1">
        <BellIcon className="size-4 shrink-0 text-muted" aria-hidden="true" />
        <span>
          {t("notifyOffer")} <span className="text-muted">{t("notifyOfferDeclined")}</span>
        </span>
      </span>
      <span className="ml-auto flex gap-1.5">
        <Button type="button" variant="primary" size="sm" onClick={() => void enableNotify().then(answer)}>
          {t("notifyOfferEnable")}
        </Button>
        <Button type="button" variant="ghost" size="sm" onClick={() => answer("dismissed")}>
          {t("notifyOfferDismiss")}
        </Button>
      </span>
    </div>
  );
}
