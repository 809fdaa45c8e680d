"use client";

import * as Dialog from "@radix-ui/react-dialog";
import Link from "next/link";
import { useEffect, useState } from "react";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useI18n } from "@/lib/client/i18n";
import { SettingsIcon } from "./icons";
import { LanguageSelect } from "./language-select";
import { SignOutButton } from "./sign-out-button";
import { Button, buttonClass } from "./ui/button";
import { cn } from "./ui/cn";

/** Phones only (below `sm`): from there up the header shows these controls itself. */
const WIDE_QUERY = "(min-width: 640px)";

/**
 * The phone header's `Account` disclosure: who is signed in, language,
 * settings and sign-out, so the conversation title keeps the header's width.
 * A non-modal dialog: Escape or a click elsewhere closes it and focus goes
 * back to the button. Its content exists only while open, so the header's own
 * "Sign out" stays the one visible match on wider screens.
 */
export function AccountMenu({
  user,
  showLanguage = true,
  className,
}: {
  user: { name: string; email?: string };
  showLanguage?: boolean;
  className?: string;
}) {
  const { t } = useI18n();
  const hydrated = useHydrated();
  const [open, setOpen] = useState(false);

  useEffect(() => {
    const media = window.matchMedia(WIDE_QUERY);
    const onChange = () => {
      if (media.matches) setOpen(false);
    };
    media.addEventListener("change", onChange);
    return () => media.removeEventListener("change", onChange);
  }, []);

  const initial = (user.name.trim()[0] ?? "?").toUpperCase();
  return (
    <Dialog.Root open={open} onOpenChange={setOpen} modal={false}>
      <Dialog.Trigger asChild>
        <Button variant="ghost" size="icon" disabled={!hydrated} className={className} title={user.name}>
          <span
            aria-hidden="true"
            className="flex size-7 items-center justify-center rounded-full bg-accent-soft text-sm font-semibold text-accent-text"
          >
            {initial}
          </span>
          <span className="sr-only">{t("account")}</span>
        </Button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Content
          aria-describedby={undefined}
          className="fixed top-14 right-2 z-50 w-[min(18rem,calc(100vw-1rem))] space-y-3 rounded-xl border border-border bg-surface p-3 shadow-xl focus:outline-none"
        >
          <Dialog.Title className="sr-only">{t("account")}</Dialog.Title>
          <div className="min-w-0">
            <p className="text-xs text-muted">{t("signedInAs")}</p>
            <p className="truncate text-sm font-medium" data-testid="account-name">
              {user.name}
            </p>
            {user.email && <p className="truncate text-xs text-muted">{user.email}</p>}
          </div>
          {showLanguage && <LanguageSelect />}
          <Link
            href="/settings"
            onClick={() => setOpen(false)}
            className={cn(buttonClass({ variant: "secondary", size: "lg", block: true }), "gap-2")}
          >
            <SettingsIcon className="size-4.5" />
            {t("settings")}
          </Link>
          <SignOutButton inMenu />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
