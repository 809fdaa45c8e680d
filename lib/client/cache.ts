// React Query keys and the patch functions shared by the feed, the send path
// and the query functions. All patches are idempotent: the same fact can reach
// the cache through a POST response, a live event, a replay after reconnect
// and a snapshot refetch, in any order.

import type { QueryClient } from "@tanstack/react-query";
import type { PublicConversation, PublicMessage, PublicRun, RunStatus } from "@/lib/contract/shapes";
import type { PublicTaskDetail } from "@/lib/contract/shapes";
import { applyTaskToDetail, applyTaskUpdate, isNewer, type PublicTask, type TaskScope } from "./tasks";

export const queryKeys = {
  /** PublicConversation[], newest activity first. */
  conversations: ["conversations"] as const,
  /** PublicConversation | null (null: deleted or not ours). */
  conversation: (id: string) => ["conversation", id] as const,
  /** PublicMessage[] ascending by seq, unique by id. */
  messages: (conversationId: string) => ["messages", conversationId] as const,
  /** MessagePaging of the loaded window of that history (lib/client/queries.ts useMessages). */
  messagePaging: (conversationId: string) => ["messagePaging", conversationId] as const,
  /** RunMap: runs of the conversation this tab knows about, by run id. */
  runs: (conversationId: string) => ["runs", conversationId] as const,
  /** Prefix of everything the background-task sheet caches. */
  tasks: ["tasks"] as const,
  /** Prefix of every task list. */
  taskLists: ["tasks", "list"] as const,
  /** PublicTask[] newest update first: one conversation's tasks, or all of the account's (null). */
  taskList: (conversationId: TaskScope) => ["tasks", "list", { conversationId }] as const,
  /** PublicTaskDetail of one task, fetched when its details are opened. */
  taskDetail: (id: string) => ["tasks", "detail", id] as const,
};

export interface RunEntry extends PublicRun {
  /** Client clock when this tab last learned something about the run. */
  seenAt: number;
}
export type RunMap = Readonly<Record<string, RunEntry>>;

export const ACTIVE_RUN_STATUSES: readonly RunStatus[] = ["queued", "running"];

export function isRunActive(status: RunStatus): boolean {
  return status === "queued" || status === "running";
}

// ---------- messages ----------

function compareMessages(a: PublicMessage, b: PublicMessage): number {
  return a.seq - b.seq || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Union by id (messages are immutable, so either copy will do), sorted by seq. */
export function mergeMessages(base: readonly PublicMessage[], incoming: readonly PublicMessage[]): PublicMessage[] {
  if (incoming.length === 0) return base as PublicMessage[];
  const byId = new Map<string, PublicMessage>();
  for (const m of base) byId.set(m.id, m);
  let changed = false;
  for (const m of incoming) {
    if (!byId.has(m.id)) changed = true;
    byId.set(m.id, m);
  }
  if (!changed && base.length === byId.size) return base as PublicMessage[];
  return [...byId.values()].sort(compareMessages);
}

// Messages that arrived over the feed, kept briefly so a history fetch that
// was already in flight (and read the database before they were committed)
// can't drop them when it lands.
const recentFeedMessages = new Map<string, PublicMessage[]>();
const RECENT_LIMIT = 200;

export function rememberFeedMessage(message: PublicMessage): void {
  const list = recentFeedMessages.get(message.conversationId) ?? [];
  list.push(message);
  if (list.length > RECENT_LIMIT) list.splice(0, list.length - RECENT_LIMIT);
  recentFeedMessages.set(message.conversationId, list);
}

export function recentMessagesFor(conversationId: string): readonly PublicMessage[] {
  return recentFeedMessages.get(conversationId) ?? [];
}

/**
 * The loaded window of a conversation's history is its newest messages down to
 * some point. `through`: the highest seq a fetch returned — everything up to it
 * is in the window; the feed adds later ones, and a refetch reads from there
 * on, so a message the feed missed (a reset, a sleep) cannot leave a hole.
 * `hasOlder`: the server has messages before the window.
 */
export interface MessagePaging {
  through: number;
  hasOlder: boolean;
}

/**
 * A fetched newest page joined with what the cache already held. Cached
 * messages older than the page are dropped when older ones exist: nothing
 * says the span between them and the page is complete.
 */
export function joinNewestPage(
  cached: readonly PublicMessage[],
  page: readonly PublicMessage[],
  hasOlder: boolean,
): PublicMessage[] {
  const floor = hasOlder && page.length ? page[0].seq : -Infinity;
  return mergeMessages(
    cached.filter((m) => m.seq >= floor),
    page,
  );
}

/** Adds messages to a loaded history; an unloaded history will fetch them itself. */
export function upsertMessages(qc: QueryClient, conversationId: string, messages: readonly PublicMessage[]): void {
  const key = queryKeys.messages(conversationId);
  if (qc.getQueryData(key) === undefined) return;
  qc.setQueryData<PublicMessage[]>(key, (prev) => (prev ? mergeMessages(prev, messages) : prev));
}

// ---------- conversations ----------

/** Pinned first, then newest activity (the server's order, lib/chat/queries.ts). */
function compareConversations(a: PublicConversation, b: PublicConversation): number {
  if (a.pinned !== b.pinned) return a.pinned ? -1 : 1;
  if (a.updatedAt !== b.updatedAt) return Date.parse(b.updatedAt) - Date.parse(a.updatedAt);
  return Date.parse(b.createdAt) - Date.parse(a.createdAt);
}

export function sortConversations(list: PublicConversation[]): PublicConversation[] {
  return list.sort(compareConversations);
}

/**
 * The copy to keep: the newer activity wins. Reading is not activity (it keeps
 * `updatedAt`), so between copies of the same moment the read mark and the
 * newest seq only move forward; otherwise `a` stays.
 */
export function newer(a: PublicConversation, b: PublicConversation): PublicConversation {
  const ta = Date.parse(a.updatedAt);
  const tb = Date.parse(b.updatedAt);
  if (ta !== tb) return ta > tb ? a : b;
  const read = b.lastReadSeq > a.lastReadSeq || (b.lastReadSeq === a.lastReadSeq && b.lastSeq > a.lastSeq) ? b : a;
  const lastSeq = Math.max(a.lastSeq, b.lastSeq);
  if (read === a && lastSeq === a.lastSeq) return a;
  return { ...a, lastSeq, lastReadSeq: read.lastReadSeq, unread: read.unread };
}

function sameConversation(a: PublicConversation, b: PublicConversation): boolean {
  return (
    a.updatedAt === b.updatedAt &&
    a.title === b.title &&
    a.pinned === b.pinned &&
    a.unread === b.unread &&
    a.lastReadSeq === b.lastReadSeq &&
    a.lastSeq === b.lastSeq
  );
}

/**
 * A message seen on the feed moves the newest seq; a user's own turn means they
 * have seen everything before it. The unread count is not ours to add to: it
 * counts task moments (lib/chat/unread-sql.ts), which only the server can tell
 * apart, and it announces each new one on the feed (`conversation.updated`) in
 * the same commit as the message, so every device shows the same number.
 */
export function applyMessageToConversation(
  c: PublicConversation,
  m: Pick<PublicMessage, "seq" | "kind">,
): PublicConversation {
  if (m.seq <= c.lastSeq) return c;
  if (m.kind === "user") return { ...c, lastSeq: m.seq, lastReadSeq: m.seq, unread: 0 };
  return { ...c, lastSeq: m.seq };
}

export function noteConversationMessage(qc: QueryClient, message: PublicMessage): void {
  const apply = (c: PublicConversation) =>
    c.id === message.conversationId ? applyMessageToConversation(c, message) : c;
  qc.setQueryData<PublicConversation[]>(queryKeys.conversations, (prev) => {
    if (!prev) return prev;
    const next = prev.map(apply);
    return next.some((c, i) => c !== prev[i]) ? next : prev;
  });
  qc.setQueryData<PublicConversation | null>(queryKeys.conversation(message.conversationId), (prev) =>
    prev ? apply(prev) : prev,
  );
}

// A deletion seen on the feed must not be undone by a snapshot read before it.
const deletedConversations = new Set<string>();

/**
 * Combines a fresh list snapshot with what the cache learned meanwhile: per id
 * the newer copy wins, and conversations created after the snapshot (newer
 * than anything in it) are kept.
 */
export function mergeConversationSnapshot(
  cached: readonly PublicConversation[] | undefined,
  fetched: readonly PublicConversation[],
): PublicConversation[] {
  const cachedById = new Map((cached ?? []).map((c) => [c.id, c]));
  const result = new Map<string, PublicConversation>();
  let newestFetched = 0;
  for (const c of fetched) {
    if (deletedConversations.has(c.id)) continue;
    newestFetched = Math.max(newestFetched, Date.parse(c.createdAt));
    const local = cachedById.get(c.id);
    result.set(c.id, local ? newer(local, c) : c);
  }
  for (const c of cached ?? []) {
    if (!result.has(c.id) && !deletedConversations.has(c.id) && Date.parse(c.createdAt) > newestFetched) {
      result.set(c.id, c);
    }
  }
  return sortConversations([...result.values()]);
}

export function upsertConversation(qc: QueryClient, conversation: PublicConversation): void {
  if (deletedConversations.has(conversation.id)) return;
  qc.setQueryData<PublicConversation[]>(queryKeys.conversations, (prev) => {
    if (!prev) return prev;
    const existing = prev.find((c) => c.id === conversation.id);
    const merged = existing ? newer(conversation, existing) : conversation;
    if (existing && sameConversation(existing, merged)) return prev;
    const next = prev.filter((c) => c.id !== conversation.id);
    next.push(merged);
    return sortConversations(next);
  });
  qc.setQueryData<PublicConversation | null>(queryKeys.conversation(conversation.id), (prev) =>
    prev ? newer(conversation, prev) : prev === null ? prev : conversation,
  );
}

export function removeConversation(qc: QueryClient, id: string): void {
  deletedConversations.add(id);
  qc.setQueryData<PublicConversation[]>(queryKeys.conversations, (prev) => prev?.filter((c) => c.id !== id));
  qc.setQueryData<PublicConversation | null>(queryKeys.conversation(id), null);
}

/** Moves a conversation to the top as soon as this tab knows it had activity. */
export function touchConversation(qc: QueryClient, id: string, at: string): void {
  qc.setQueryData<PublicConversation[]>(queryKeys.conversations, (prev) => {
    if (!prev) return prev;
    const current = prev.find((c) => c.id === id);
    if (!current || Date.parse(current.updatedAt) >= Date.parse(at)) return prev;
    return sortConversations(prev.map((c) => (c.id === id ? { ...c, updatedAt: at } : c)));
  });
}

// ---------- runs ----------

const RUN_RANK: Record<RunStatus, number> = { queued: 0, running: 1, succeeded: 2, failed: 2, cancelled: 2 };

/** Status only moves forward, so a late POST response can't resurrect a finished run. */
function mergeRunEntry(prev: RunEntry | undefined, run: PublicRun, seenAt: number): RunEntry {
  if (!prev) return { ...run, seenAt };
  if (RUN_RANK[run.status] < RUN_RANK[prev.status]) return prev;
  if (RUN_RANK[run.status] === RUN_RANK[prev.status] && RUN_RANK[run.status] === 2) return prev;
  return { ...prev, ...run, seenAt };
}

export function mergeRun(qc: QueryClient, run: PublicRun): void {
  const now = Date.now();
  qc.setQueryData<RunMap>(queryKeys.runs(run.conversationId), (prev) => {
    const current = prev?.[run.id];
    const merged = mergeRunEntry(current, run, now);
    if (merged === current) return prev;
    return { ...prev, [run.id]: merged };
  });
}

/**
 * Applies a server snapshot of the conversation's active runs. Runs this tab
 * still thinks are active but the snapshot doesn't list were finished while
 * their final event was lost (e.g. after a feed reset): drop them, unless we
 * heard of them after the snapshot was requested.
 */
export function reconcileActiveRuns(
  qc: QueryClient,
  conversationId: string,
  activeRuns: readonly PublicRun[],
  requestedAt: number,
): void {
  const now = Date.now();
  qc.setQueryData<RunMap>(queryKeys.runs(conversationId), (prev) => {
    const next: Record<string, RunEntry> = { ...prev };
    const listed = new Set(activeRuns.map((r) => r.id));
    for (const [id, entry] of Object.entries(next)) {
      if (isRunActive(entry.status) && !listed.has(id) && entry.seenAt < requestedAt) delete next[id];
    }
    for (const run of activeRuns) next[run.id] = mergeRunEntry(next[run.id], run, now);
    return next;
  });
}

// ---------- background tasks ----------

function scopeOfListKey(key: readonly unknown[]): TaskScope | undefined {
  const filter = key[2];
  if (typeof filter !== "object" || filter === null || !("conversationId" in filter)) return undefined;
  const id = (filter as { conversationId: unknown }).conversationId;
  return typeof id === "string" ? id : id === null ? null : undefined;
}

/**
 * The newest copy of each task the client was told of, for a list whose first fetch is in flight: there is no list to
 * patch yet, and its snapshot, read before the event, would stand until the next poll — for good once that poll answers
 * 404 (the conversation was deleted, and its tasks' cancels only reach the page through the feed). Bounded: a list
 * loaded later than this many updates has been polled by then.
 */
const SEEN_TASKS = 200;
const seenByClient = new WeakMap<QueryClient, Map<string, PublicTask>>();

export function seenTasks(qc: QueryClient): Iterable<PublicTask> {
  return seenByClient.get(qc)?.values() ?? [];
}

function noteSeen(qc: QueryClient, task: PublicTask): void {
  let seen = seenByClient.get(qc);
  if (!seen) seenByClient.set(qc, (seen = new Map()));
  const other = seen.get(task.id);
  if (other && !isNewer(task, other)) return;
  seen.delete(task.id);
  seen.set(task.id, task);
  if (seen.size > SEEN_TASKS) seen.delete(seen.keys().next().value!);
}

/**
 * One task's newest public shape (feed event, cancel response) into every
 * loaded list and its detail. Returns true when the detail was older, i.e.
 * its publications, notices or progress may have moved on too.
 */
export function patchTask(qc: QueryClient, task: PublicTask): boolean {
  noteSeen(qc, task);
  for (const query of qc.getQueryCache().findAll({ queryKey: queryKeys.taskLists })) {
    const scope = scopeOfListKey(query.queryKey);
    if (scope === undefined) continue;
    qc.setQueryData<PublicTask[]>(query.queryKey, (prev) => applyTaskUpdate(prev, task, scope));
  }
  const detailKey = queryKeys.taskDetail(task.id);
  const detail = qc.getQueryData<PublicTaskDetail>(detailKey);
  const next = applyTaskToDetail(detail, task);
  if (next === detail) return false;
  qc.setQueryData<PublicTaskDetail>(detailKey, next);
  return true;
}

/**
 * Refetches everything a cursorless feed cannot replay (its open without a cursor, a
 * reset). invalidateQueries joins a query still on its first fetch instead of starting
 * it again (there is no data to keep, so nothing is cancelled), yet that fetch may have
 * read the server before an event this connection will not replay: such a query is
 * fetched once more when it lands.
 */
export async function refreshAll(qc: QueryClient): Promise<void> {
  const first = qc
    .getQueryCache()
    .findAll({ predicate: (q) => q.state.fetchStatus === "fetching" && q.state.data === undefined });
  await qc.invalidateQueries();
  await Promise.all(
    first.map(async (q) => {
      // Asked again while it is still under way, the first fetch would only be joined once more.
      await q.fetch().catch(() => undefined);
      await qc.refetchQueries({ queryKey: q.queryKey, exact: true });
    }),
  );
}
