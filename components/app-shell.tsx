"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { useEffect, useState, type ReactNode } from "react";
import type { PublicConversation } from "@/lib/contract/shapes";
import { useFeed } from "@/lib/client/feed";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useConversation, useConversations } from "@/lib/client/queries";
import { useAwaySignals } from "@/lib/client/away";
import { useI18n } from "@/lib/client/i18n";
import Link from "next/link";
import { AccountMenu } from "./account-menu";
import { ConnectionBanner } from "./connection-banner";
import { MenuIcon, SettingsIcon } from "./icons";
import { LanguageSelect } from "./language-select";
import { NewChatButton } from "./new-chat-button";
import { SignOutButton, SignOutSync } from "./sign-out-button";
import { CloseButton } from "./close-button";
import { Sidebar } from "./sidebar";
import { Toaster } from "./toaster";
import { Button, buttonClass } from "./ui/button";

const DESKTOP_QUERY = "(min-width: 768px)";

export interface ShellUser {
  name: string;
  email?: string;
}

/**
 * The signed-in frame: sidebar (a drawer behind "Conversations" on phones),
 * header, and the page content. `headerActions` is the slot for header
 * controls owned by other features (e.g. the background-tasks sheet).
 */
export function AppShell({
  user,
  conversation,
  page,
  headerActions,
  children,
}: {
  user: ShellUser;
  conversation?: PublicConversation;
  /** A page of its own (not a conversation): its name is the header's title. */
  page?: "settings" | "allTasks";
  headerActions?: ReactNode;
  children: ReactNode;
}) {
  const { t } = useI18n();
  const [drawerOpen, setDrawerOpen] = useState(false);
  const hydrated = useHydrated();
  useFeed();

  const conversationQuery = useConversation(conversation?.id ?? null, conversation);
  const title = conversation
    ? (conversationQuery.data?.title ?? conversation.title).trim() || t("untitled")
    : page
      ? t(page)
      : null;
  const conversations = useConversations();
  useAwaySignals(conversation?.id ?? null, title, conversations.data, t("appName"));

  // The drawer is a modal on phones only; if the window grows past that, let go of it.
  useEffect(() => {
    const media = window.matchMedia(DESKTOP_QUERY);
    const onChange = () => {
      if (media.matches) setDrawerOpen(false);
    };
    media.addEventListener("change", onChange);
    return () => media.removeEventListener("change", onChange);
  }, []);

  return (
    <div className="flex h-dvh overflow-hidden">
      <a
        href="#main-content"
        className="sr-only rounded-md bg-surface px-3 py-2 text-sm font-medium shadow focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50"
      >
        {t("skipToContent")}
      </a>

      <aside className="hidden w-72 shrink-0 border-r border-border bg-surface md:block">
        <Sidebar activeId={conversation?.id} allTasksActive={page === "allTasks"} />
      </aside>

      <div className="flex min-w-0 flex-1 flex-col">
        <header className="flex h-14 shrink-0 items-center gap-1 border-b border-border bg-surface px-2 sm:gap-2 sm:px-4">
          <Dialog.Root open={drawerOpen} onOpenChange={setDrawerOpen}>
            <Dialog.Trigger asChild>
              <Button variant="ghost" size="icon" disabled={!hydrated} className="md:hidden">
                <MenuIcon />
                <span className="sr-only">{t("conversations")}</span>
              </Button>
            </Dialog.Trigger>
            <Dialog.Portal>
              <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40 md:hidden" />
              <Dialog.Content
                aria-describedby={undefined}
                className="fixed inset-y-0 left-0 z-50 w-[85vw] max-w-80 border-r border-border bg-surface shadow-xl focus:outline-none md:hidden"
              >
                <Dialog.Title className="sr-only">{t("conversations")}</Dialog.Title>
                <Sidebar
                  activeId={conversation?.id}
                  allTasksActive={page === "allTasks"}
                  onNavigate={() => setDrawerOpen(false)}
                  closeButton={<CloseButton />}
                />
              </Dialog.Content>
            </Dialog.Portal>
          </Dialog.Root>

          <div className="min-w-0 flex-1 px-1">
            {title !== null ? (
              <h1 className="truncate text-[0.95rem] font-semibold" title={title}>
                {title}
              </h1>
            ) : (
              <span className="font-semibold tracking-tight md:hidden">{t("appName")}</span>
            )}
          </div>

          <div id="header-actions" className="flex shrink-0 items-center gap-1.5 empty:hidden">
            {headerActions}
          </div>
          <NewChatButton variant="icon" className="md:hidden" />
          {/* Phones: account, language, settings and sign-out live in the Account menu, so the title keeps the width. */}
          <AccountMenu user={user} showLanguage={page !== "settings"} className="sm:hidden" />
          <div className="hidden sm:contents">
            {/* The settings page has its own, labelled language control: one per page. */}
            {page !== "settings" && <LanguageSelect compact />}
            <span
              className="max-w-[5.5rem] truncate px-1 text-sm font-medium text-muted sm:max-w-[12rem]"
              title={user.name}
              data-testid="user-name"
            >
              {user.name}
            </span>
            <Link
              href="/settings"
              aria-label={t("settings")}
              title={t("settings")}
              className={buttonClass({ variant: "ghost", size: "icon" })}
            >
              <SettingsIcon className="size-4.5" />
            </Link>
            <SignOutButton />
          </div>
        </header>

        <main id="main-content" tabIndex={-1} className="flex min-h-0 flex-1 flex-col focus:outline-none">
          {children}
        </main>
      </div>
      <Toaster />
      <ConnectionBanner />
      <SignOutSync />
    </div>
  );
}
