// Signals for a reader who is somewhere else: the tab title and favicon carry
// the unread count, the open conversation is marked read while it is visible
// (through the API, so the account's other tabs and devices clear their dots
// from the feed), and a task's notice in another chat raises a toast.

import { useEffect, useRef } from "react";
import { useQueryClient, type QueryClient } from "@tanstack/react-query";
import type { NoticeOutcome, PublicConversation, PublicMessage } from "@/lib/contract/shapes";
import { markConversationRead } from "./api";
import { queryKeys, upsertConversation } from "./cache";
import { pushToast, type Toast } from "./toasts";

/** The conversation this tab shows, or null (home, settings, all tasks). Read by the feed. */
let openConversationId: string | null = null;

export function getOpenConversation(): string | null {
  return openConversationId;
}

/** Unread replies across the account's conversations, as the tab title and favicon show them. */
export function unreadTotal(conversations: readonly PublicConversation[] | undefined): number {
  return (conversations ?? []).reduce((n, c) => n + Math.max(0, c.unread), 0);
}

export function tabTitle(title: string | null, unread: number, appName: string): string {
  const base = title ? `${title} · ${appName}` : appName;
  return unread > 0 ? `(${unread > 99 ? "99+" : unread}) ${base}` : base;
}

const ICON_MARK = `<rect width="32" height="32" rx="7" fill="#4f46e5"/><path d="M9 23V9h3v5.5h8V9h3v14h-3v-5.6h-8V23z" fill="#fff"/>`;

/** The app icon (app/icon.svg) with a red dot in the corner while anything is unread. */
export function faviconHref(unread: number): string {
  const dot = unread > 0 ? `<circle cx="25" cy="7" r="7" fill="#dc2626" stroke="#fff" stroke-width="2"/>` : "";
  return `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">${ICON_MARK}${dot}</svg>`)}`;
}

function setFavicon(unread: number): void {
  let link = document.querySelector<HTMLLinkElement>("link[data-away-icon]");
  if (!link) {
    link = document.createElement("link");
    link.rel = "icon";
    link.type = "image/svg+xml";
    link.dataset.awayIcon = "";
    document.head.appendChild(link);
  }
  link.dataset.unread = String(unread);
  const href = faviconHref(unread);
  if (link.getAttribute("href") !== href) link.setAttribute("href", href);
}

/** The newest message seq this tab has of a conversation: the list's count or the loaded history. */
function newestSeq(qc: QueryClient, conversation: PublicConversation): number {
  const messages = qc.getQueryData<PublicMessage[]>(queryKeys.messages(conversation.id));
  return Math.max(conversation.lastSeq, messages?.at(-1)?.seq ?? 0);
}

const pendingReads = new Map<string, number>();

/** Marks a conversation read through `seq` unless that is already asked; the answer is the feed's truth too. */
async function markRead(qc: QueryClient, id: string, seq: number): Promise<void> {
  if ((pendingReads.get(id) ?? -1) >= seq) return;
  pendingReads.set(id, seq);
  try {
    upsertConversation(qc, await markConversationRead(id, seq));
  } catch {
    // The next message or visibility change tries again; a read mark is never worth an error on screen.
  } finally {
    if (pendingReads.get(id) === seq) pendingReads.delete(id);
  }
}

/**
 * Keeps the tab's title, favicon and read mark in step with the caches. The
 * open conversation counts as read only while the page is visible: a reply
 * that lands in a background tab stays unread (and shows in the title) until
 * the reader comes back.
 */
export function useAwaySignals(
  conversationId: string | null,
  title: string | null,
  conversations: readonly PublicConversation[] | undefined,
  appName: string,
): void {
  const qc = useQueryClient();
  // The list holds the newest 100; an older chat opened from a link has only its own copy.
  const open =
    conversations?.find((c) => c.id === conversationId) ??
    (conversationId
      ? (qc.getQueryData<PublicConversation | null>(queryKeys.conversation(conversationId)) ?? null)
      : null);
  // The conversation on screen is being read: only a hidden tab counts it.
  const visible = typeof document !== "undefined" && document.visibilityState === "visible";
  const total = unreadTotal(conversations?.filter((c) => !(visible && c.id === conversationId)));
  const openUnread = open ? open.unread > 0 || open.lastReadSeq < newestSeq(qc, open) : false;
  const state = useRef({ conversationId, open });
  useEffect(() => {
    state.current = { conversationId, open };
  });

  useEffect(() => {
    openConversationId = conversationId;
    return () => {
      if (openConversationId === conversationId) openConversationId = null;
    };
  }, [conversationId]);

  useEffect(() => {
    const want = tabTitle(title, total, appName);
    // Next writes the page's metadata <title> on client navigation, sometimes after this
    // effect ran: keep ours whenever the head changes (setting it again is a no-op).
    const apply = () => {
      if (document.title !== want) document.title = want;
    };
    apply();
    setFavicon(total);
    const observer = new MutationObserver(apply);
    observer.observe(document.head, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, [title, total, appName]);

  useEffect(() => {
    const readIfVisible = () => {
      const { open: c } = state.current;
      if (!c || document.visibilityState !== "visible") return;
      const seq = newestSeq(qc, c);
      if (c.unread > 0 || c.lastReadSeq < seq) void markRead(qc, c.id, seq);
    };
    readIfVisible();
    document.addEventListener("visibilitychange", readIfVisible);
    window.addEventListener("focus", readIfVisible);
    return () => {
      document.removeEventListener("visibilitychange", readIfVisible);
      window.removeEventListener("focus", readIfVisible);
    };
  }, [qc, openUnread, open?.lastSeq]);
}

// ---------- a task's notice in another chat ----------

const toasted = new Set<string>();
/** A notice older than this when first heard of is history (a reload, a replay), not news. */
const NEWS_MS = 120_000;

/** Notice outcomes that raise a toast, and how it reads; a user's own cancel posts no notice. */
const TOAST_OF: Partial<
  Record<NoticeOutcome, { key: "Succeeded" | "Failed" | "Stopped" | "Missed"; tone: Toast["tone"] }>
> = {
  done: { key: "Succeeded", tone: "info" },
  on_time: { key: "Succeeded", tone: "info" },
  early: { key: "Succeeded", tone: "info" },
  late: { key: "Succeeded", tone: "info" },
  missed: { key: "Missed", tone: "info" },
  stopped: { key: "Stopped", tone: "info" },
  failed: { key: "Failed", tone: "error" },
};

const sameName = (a: string, b: string) => a.trim().toLocaleLowerCase() === b.trim().toLocaleLowerCase();

/**
 * Called by the feed for each message: a task's notice in a chat other than the
 * open one raises one toast with a link to that chat. The notice, not the task's
 * status, is the moment: a result promised `at` a time is announced at that time
 * (its notice is written then), whenever the work itself ended.
 */
export function noteNotice(qc: QueryClient, message: PublicMessage): void {
  if (message.kind !== "notice" || !message.meta || toasted.has(message.meta.noticeId)) return;
  const created = Date.parse(message.createdAt);
  if (!Number.isFinite(created) || Math.abs(Date.now() - created) > NEWS_MS) return;
  toasted.add(message.meta.noticeId);
  const look = TOAST_OF[message.meta.outcome];
  if (!look) return;
  if (message.conversationId === openConversationId && document.visibilityState === "visible") return;
  const chat = qc
    .getQueryData<PublicConversation[]>(queryKeys.conversations)
    ?.find((c) => c.id === message.conversationId);
  // A notice of a chat deleted meanwhile is no news.
  if (!chat) return;
  const title = message.meta.title;
  // "'Tides' finished in Tides" says the name twice: a chat named after its task is left out.
  const alone = sameName(title, chat.title);
  pushToast({
    tone: look.tone,
    key: `toastTask${look.key}${alone ? "Alone" : ""}`,
    vars: alone ? { title } : { title, chat: chat.title },
    link: { href: `/c/${message.conversationId}`, key: "toastOpen" },
  });
}
