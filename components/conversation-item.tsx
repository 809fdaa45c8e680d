"use client";

import * as Dialog from "@radix-ui/react-dialog";
import Link from "next/link";
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent, type RefObject } from "react";
import type { PublicConversation } from "@/lib/contract/shapes";
import { useDeleteConversation, usePinConversation, useRenameConversation } from "@/lib/client/chat-actions";
import { useI18n } from "@/lib/client/i18n";
import { MAX_TITLE_CHARS } from "@/lib/contract/input-bounds";
import { MoreIcon, PinIcon } from "./chat-icons";
import { LocalTime } from "./local-time";
import { Button } from "./ui/button";
import { cn } from "./ui/cn";

/**
 * One chat in the sidebar: the link (with an unread dot), and behind "Options
 * for …" rename (in place), pin and delete (after a confirmation that says its
 * running tasks are cancelled).
 */
export function ConversationItem({
  conversation,
  active,
  onNavigate,
}: {
  conversation: PublicConversation;
  active: boolean;
  onNavigate?: () => void;
}) {
  const { t } = useI18n();
  const title = conversation.title.trim() || t("untitled");
  const [menuOpen, setMenuOpen] = useState(false);
  const [renaming, setRenaming] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const menuId = useId();
  const optionsRef = useRef<HTMLButtonElement>(null);
  const pin = usePinConversation();
  const remove = useDeleteConversation();
  // The open chat is being read: its dot would only flicker until the read mark lands.
  const unread = active ? 0 : conversation.unread;
  const focusOptionsSoon = () => requestAnimationFrame(() => optionsRef.current?.focus());

  function closeMenu(focusOptions: boolean) {
    setMenuOpen(false);
    if (focusOptions) optionsRef.current?.focus();
  }

  if (renaming) {
    return (
      <li>
        <RenameForm
          conversation={conversation}
          onDone={() => {
            setRenaming(false);
            focusOptionsSoon();
          }}
        />
      </li>
    );
  }

  return (
    <li data-unread={unread > 0 || undefined} data-pinned={conversation.pinned || undefined}>
      <div
        className={cn(
          "group relative flex items-stretch rounded-lg",
          active ? "bg-accent-soft text-accent-text" : "text-fg hover:bg-subtle",
        )}
      >
        <ChatLink conversation={conversation} title={title} active={active} unread={unread} onNavigate={onNavigate} />
        <OptionsButton
          buttonRef={optionsRef}
          title={title}
          menuId={menuId}
          menuOpen={menuOpen}
          onToggle={() => setMenuOpen((open) => !open)}
        />
      </div>
      {menuOpen && (
        <ItemMenu
          id={menuId}
          pinned={conversation.pinned}
          pinPending={pin.isPending}
          onClose={closeMenu}
          onRename={() => setRenaming(true)}
          onTogglePin={() => pin.mutate({ id: conversation.id, pinned: !conversation.pinned })}
          onDelete={() => setConfirmDelete(true)}
        />
      )}
      <DeleteDialog
        title={title}
        open={confirmDelete}
        deleting={remove.isPending}
        onOpenChange={(open) => {
          setConfirmDelete(open);
          if (!open) focusOptionsSoon();
        }}
        onConfirm={() => {
          remove.mutate(conversation, { onSettled: () => setConfirmDelete(false) });
        }}
      />
    </li>
  );
}

function ChatLink({
  conversation,
  title,
  active,
  unread,
  onNavigate,
}: {
  conversation: PublicConversation;
  title: string;
  active: boolean;
  unread: number;
  onNavigate?: () => void;
}) {
  const { t } = useI18n();
  return (
    <Link
      href={`/c/${conversation.id}`}
      onClick={onNavigate}
      aria-current={active ? "page" : undefined}
      className="flex min-w-0 flex-1 flex-col gap-0.5 rounded-lg py-2 pr-1 pl-3 text-sm"
    >
      <span className="flex min-w-0 items-center gap-1.5">
        {conversation.pinned && <PinIcon className="size-3.5 shrink-0 text-muted" />}
        <span className={cn("truncate", active || unread > 0 ? "font-semibold" : "font-medium")}>{title}</span>
        {unread > 0 && (
          <span data-testid="unread-dot" className="ml-auto size-2 shrink-0 rounded-full bg-accent">
            <span className="sr-only">{t("unreadCount", { n: unread })}</span>
          </span>
        )}
      </span>
      <LocalTime iso={conversation.updatedAt} className="text-xs text-muted" />
    </Link>
  );
}

function OptionsButton({
  buttonRef,
  title,
  menuId,
  menuOpen,
  onToggle,
}: {
  buttonRef: RefObject<HTMLButtonElement | null>;
  title: string;
  menuId: string;
  menuOpen: boolean;
  onToggle: () => void;
}) {
  const { t } = useI18n();
  return (
    <Button
      ref={buttonRef}
      variant="muted"
      size="icon-sm"
      aria-expanded={menuOpen}
      aria-controls={menuOpen ? menuId : undefined}
      onClick={onToggle}
      className={cn(
        "my-auto mr-1 opacity-60 group-hover:opacity-100 focus-visible:opacity-100",
        menuOpen && "opacity-100",
      )}
    >
      <MoreIcon />
      <span className="sr-only">{t("chatActionsFor", { title })}</span>
    </Button>
  );
}

/** Rename, pin and delete; closing it by Escape or pin returns focus to the options button. */
function ItemMenu({
  id,
  pinned,
  pinPending,
  onClose,
  onRename,
  onTogglePin,
  onDelete,
}: {
  id: string;
  pinned: boolean;
  pinPending: boolean;
  onClose: (focusOptions: boolean) => void;
  onRename: () => void;
  onTogglePin: () => void;
  onDelete: () => void;
}) {
  const { t } = useI18n();

  function onMenuKey(event: KeyboardEvent) {
    if (event.key === "Escape") {
      event.stopPropagation();
      onClose(true);
    }
  }

  return (
    <div
      id={id}
      onKeyDown={onMenuKey}
      className="mx-2 mt-1 mb-2 flex flex-wrap gap-1 rounded-lg border border-border bg-surface p-1 shadow-sm"
    >
      <Button
        variant="ghost"
        size="md"
        onClick={() => {
          onClose(false);
          onRename();
        }}
      >
        {t("renameChat")}
      </Button>
      <Button
        variant="ghost"
        size="md"
        disabled={pinPending}
        onClick={() => {
          onClose(true);
          onTogglePin();
        }}
      >
        {pinned ? t("unpinChat") : t("pinChat")}
      </Button>
      <Button
        variant="ghost"
        size="md"
        className="text-danger"
        onClick={() => {
          onClose(false);
          onDelete();
        }}
      >
        {t("deleteChat")}
      </Button>
    </div>
  );
}

function DeleteDialog({
  title,
  open,
  deleting,
  onOpenChange,
  onConfirm,
}: {
  title: string;
  open: boolean;
  deleting: boolean;
  onOpenChange: (open: boolean) => void;
  onConfirm: () => void;
}) {
  const { t } = useI18n();
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-black/40" />
        <Dialog.Content
          role="alertdialog"
          className="fixed top-1/2 left-1/2 z-50 w-[min(92vw,26rem)] -translate-x-1/2 -translate-y-1/2 rounded-xl border border-border bg-surface p-5 shadow-xl focus:outline-none"
        >
          <Dialog.Title className="text-base font-semibold">{t("deleteChatTitle", { title })}</Dialog.Title>
          <Dialog.Description className="mt-2 text-sm text-muted">{t("deleteChatBody")}</Dialog.Description>
          <div className="mt-5 flex justify-end gap-2">
            <Dialog.Close asChild>
              <Button variant="secondary" size="lg">
                {t("cancelEdit")}
              </Button>
            </Dialog.Close>
            <Button variant="danger" size="lg" disabled={deleting} onClick={onConfirm}>
              {t("deleteChatConfirm")}
            </Button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function RenameForm({ conversation, onDone }: { conversation: PublicConversation; onDone: () => void }) {
  const { t } = useI18n();
  const [value, setValue] = useState(conversation.title);
  const inputRef = useRef<HTMLInputElement>(null);
  const rename = useRenameConversation();
  const inputId = useId();

  useEffect(() => {
    inputRef.current?.focus();
    inputRef.current?.select();
  }, []);

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    const title = value.trim();
    if (!title || title === conversation.title) return onDone();
    rename.mutate({ id: conversation.id, title }, { onSettled: onDone });
  }

  return (
    <form onSubmit={onSubmit} className="flex flex-col gap-1.5 rounded-lg bg-subtle p-2">
      <label htmlFor={inputId} className="sr-only">
        {t("chatTitle")}
      </label>
      <input
        ref={inputRef}
        id={inputId}
        value={value}
        maxLength={MAX_TITLE_CHARS}
        onChange={(event) => setValue(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            event.preventDefault();
            onDone();
          }
        }}
        className="h-8 w-full rounded-md border border-border bg-surface px-2 text-base text-fg sm:text-sm"
      />
      <div className="flex justify-end gap-1">
        <Button type="button" variant="ghost" size="md" onClick={onDone}>
          {t("cancelEdit")}
        </Button>
        <Button type="submit" variant="primary" size="md" disabled={rename.isPending || !value.trim()}>
          {t("saveTitle")}
        </Button>
      </div>
    </form>
  );
}
