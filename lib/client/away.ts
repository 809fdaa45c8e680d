// Signals for a reader who is somewhere else: the tab title and favicon carry
// the unread count, the open conversation is marked read while it is visible
// (through the API, so the account's other tabs and devices clear their dots
// from the feed), and a task that finishes in another chat raises a toast.

import { useEffect, useRef } from "react";
import { useQueryClient, type QueryClient } from "@tanstack/react-query";
import type { PublicConversation, PublicMessage } from "@/lib/contract/shapes";
import { isTerminalStatus, type PublicTask } from "@/lib/contract/task";
import { markConversationRead } from "./api";
import { queryKeys, upsertConversation } from "./cache";
import { pushToast } from "./toasts";

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
    (conversationId ? (qc.getQueryData<PublicConversation | null>(queryKeys.conversation(conversationId)) ?? null) : null);
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

// ---------- a task finishing in another chat ----------

const toasted = new Set<string>();
/** A finish older than this when first heard of is history (a reload, a replay), not news. */
const NEWS_MS = 120_000;

/**
 * Called by the feed before it patches a task: a task that reached its end in
 * a chat other than the open one raises one toast with a link to that chat.
 * "Before" is the cached copy when there is one, else the finish time.
 */
export function noteTaskUpdate(qc: QueryClient, task: PublicTask, previous: PublicTask | undefined): void {
  if (!isTerminalStatus(task.status) || toasted.has(task.id)) return;
  if (previous && isTerminalStatus(previous.status)) return;
  if (!previous) {
    const finished = Date.parse(task.completedAt ?? task.updatedAt);
    if (!Number.isFinite(finished) || Math.abs(Date.now() - finished) > NEWS_MS) return;
  }
  toasted.add(task.id);
  if (task.conversationId === openConversationId && document.visibilityState === "visible") return;
  const chat = qc.getQueryData<PublicConversation[]>(queryKeys.conversations)?.find((c) => c.id === task.conversationId);
  // A task cancelled because its chat was deleted is no news.
  if (!chat) return;
  const key = task.status === "succeeded" ? "toastTaskSucceeded" : task.status === "failed" ? "toastTaskFailed" : "toastTaskStopped";
  pushToast({
    tone: task.status === "failed" ? "error" : "info",
    key,
    vars: { title: task.title, chat: chat.title },
    link: { href: `/c/${task.conversationId}`, key: "toastOpen" },
  });
}

/** The newest copy of a task any loaded list holds. */
export function cachedTask(qc: QueryClient, id: string): PublicTask | undefined {
  let found: PublicTask | undefined;
  for (const query of qc.getQueryCache().findAll({ queryKey: queryKeys.taskLists })) {
    const copy = (query.state.data as PublicTask[] | undefined)?.find((t) => t.id === id);
    if (copy && (!found || Date.parse(copy.updatedAt) > Date.parse(found.updatedAt))) found = copy;
  }
  return found;
}
