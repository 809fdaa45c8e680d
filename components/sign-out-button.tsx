"use client";

import { useEffect, useState } from "react";
import { authClient } from "@/lib/auth/client";
import { stopFeed } from "@/lib/client/feed";
import { announceSignOut, announceSigningOut, followSignOut } from "@/lib/client/session-sync";
import { pushToast } from "@/lib/client/toasts";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useI18n } from "@/lib/client/i18n";
import { DevicesIcon, SignOutIcon } from "./icons";
import { Button } from "./ui/button";

/** The header's "Sign out" (this browser only); `inMenu`: the labelled row of the phone's account menu. */
export function SignOutButton({ inMenu = false }: { inMenu?: boolean }) {
  const { t } = useI18n();
  const [pending, setPending] = useState(false);
  const hydrated = useHydrated();

  async function signOut() {
    setPending(true);
    // Nothing for this account may arrive after the user asked to leave.
    stopFeed();
    announceSigningOut();
    try {
      await authClient.signOut();
    } catch {
      // The sign-in page is still the right place to land; if the cookie
      // survived, the next protected page will show it.
    }
    // Other tabs of this browser leave too, now rather than at their next request.
    announceSignOut();
    // A full load drops every cache of this session.
    window.location.assign("/sign-in");
  }

  if (inMenu) {
    // Set apart below a divider, in the danger tone and with what it does, so it
    // is not taken for "Sign in" or hit while reaching for Settings.
    return (
      <div className="space-y-1.5 border-t border-border pt-3">
        <Button
          variant="danger-outline"
          size="lg"
          block
          onClick={() => void signOut()}
          disabled={pending || !hydrated}
          aria-describedby="sign-out-hint"
          className="gap-2 disabled:opacity-60"
        >
          <SignOutIcon className="size-4.5" />
          {t("signOut")}
        </Button>
        <p id="sign-out-hint" className="text-xs text-muted">
          {t("signOutHint")}
        </p>
      </div>
    );
  }

  return (
    // An icon on phones, an outlined label from `sm` up.
    <Button
      variant="ghost"
      size="none"
      onClick={() => void signOut()}
      disabled={pending || !hydrated}
      className="h-9 shrink-0 gap-1.5 rounded-lg px-2 text-sm disabled:opacity-60 sm:border sm:border-border sm:px-3"
    >
      <SignOutIcon className="size-4.5 sm:hidden" />
      <span className="sr-only sm:not-sr-only">{t("signOut")}</span>
    </Button>
  );
}

/**
 * "Sign out of all devices" lives on the Settings page, not beside "Sign out":
 * two header buttons whose names share "Sign out" would be ambiguous by name.
 */
export function SignOutEverywhereButton() {
  const { t } = useI18n();
  const [pending, setPending] = useState(false);
  const hydrated = useHydrated();

  async function signOutEverywhere() {
    setPending(true);
    stopFeed();
    let revoked = false;
    try {
      // Deletes every session of the account, this one included; their open feeds
      // end with them (lib/events/feed.ts).
      const { error } = await authClient.revokeSessions();
      // 401: this session was already gone, so there is nothing left to revoke from here.
      revoked = !error || error.status === 401;
    } catch {
      revoked = false;
    }
    if (!revoked) {
      // The other devices are still signed in: say so instead of pretending.
      setPending(false);
      pushToast({ tone: "error", key: "signOutAllFailed" });
      return;
    }
    // Clears this browser's (now dead) session cookie.
    await authClient.signOut().catch(() => {});
    announceSignOut();
    window.location.assign("/sign-in");
  }

  return (
    <Button
      variant="secondary"
      size="lg"
      onClick={() => void signOutEverywhere()}
      disabled={pending || !hydrated}
      className="gap-2 disabled:opacity-60"
    >
      <DevicesIcon className="size-4.5" />
      {t("signOutAll")}
    </Button>
  );
}

/** Mounted once per signed-in page: a sign-out in another tab of this browser ends this one too. */
export function SignOutSync() {
  useEffect(() => followSignOut(), []);
  return null;
}
