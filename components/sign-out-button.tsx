"use client";

import { useState } from "react";
import { authClient } from "@/lib/auth/client";
import { stopFeed } from "@/lib/client/feed";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useI18n } from "@/lib/i18n/client";
import { SignOutIcon } from "./icons";

export function SignOutButton() {
  const { t } = useI18n();
  const [pending, setPending] = useState(false);
  const hydrated = useHydrated();

  async function signOut() {
    setPending(true);
    // Nothing for this account may arrive after the user asked to leave.
    stopFeed();
    try {
      await authClient.signOut();
    } catch {
      // The sign-in page is still the right place to land; if the cookie
      // survived, the next protected page will show it.
    }
    // A full load drops every cache of this session.
    window.location.assign("/sign-in");
  }

  return (
    <button
      type="button"
      onClick={() => void signOut()}
      disabled={pending || !hydrated}
      className="flex h-9 shrink-0 items-center gap-1.5 rounded-lg px-2 text-sm font-medium text-fg hover:bg-subtle disabled:opacity-60 sm:border sm:border-border sm:px-3"
    >
      <SignOutIcon className="size-4.5 sm:hidden" />
      <span className="sr-only sm:not-sr-only">{t("signOut")}</span>
    </button>
  );
}
