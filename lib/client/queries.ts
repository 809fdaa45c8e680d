// Query hooks. The feed keeps these caches current; the query functions are
// for first load, refocus and `reset`, and they merge with what the feed
// delivered while they were in flight.

import { useCallback } from "react";
import {
  useInfiniteQuery,
  useIsFetching,
  useMutation,
  useMutationState,
  useQuery,
  useQueryClient,
  type QueryClient,
} from "@tanstack/react-query";
import type { PublicConversation, PublicMessage } from "@/lib/contract/shapes";
import type { PublicTaskDetail } from "@/lib/contract/shapes";
import {
  answerTaskInput,
  ResponseError,
  sendTaskInstructions,
  cancelTask,
  getConversation,
  getTask,
  getTaskHistory,
  listAllMessages,
  listConversations,
  listMessagesBefore,
  listTasks,
} from "./api";
import {
  joinNewestPage,
  mergeConversationSnapshot,
  mergeMessages,
  type MessagePaging,
  patchTask,
  queryKeys,
  seenTasks,
  recentMessagesFor,
  reconcileActiveRuns,
  type RunMap,
} from "./cache";
import { pushToast } from "./toasts";
import { mergeTaskSnapshot, taskRefetchInterval, type PublicTask, type TaskScope } from "./tasks";

export function useConversations() {
  const qc = useQueryClient();
  return useQuery({
    queryKey: queryKeys.conversations,
    queryFn: async ({ signal }) => {
      const { conversations } = await listConversations(signal);
      return mergeConversationSnapshot(qc.getQueryData<PublicConversation[]>(queryKeys.conversations), conversations);
    },
  });
}

export function useConversation(id: string | null, initial?: PublicConversation) {
  const qc = useQueryClient();
  return useQuery({
    queryKey: queryKeys.conversation(id ?? ""),
    enabled: id !== null,
    queryFn: async ({ signal }): Promise<PublicConversation | null> => {
      const requestedAt = Date.now();
      try {
        const { activeRuns, ...conversation } = await getConversation(id as string, signal);
        if (Array.isArray(activeRuns)) reconcileActiveRuns(qc, conversation.id, activeRuns, requestedAt);
        return conversation;
      } catch (error) {
        if (error instanceof ResponseError && error.status === 404) return null;
        throw error;
      }
    },
    initialData: initial,
    // The server-rendered copy has the title but not the active runs: fetch once anyway.
    initialDataUpdatedAt: 0,
  });
}

/** Messages a conversation opens with; older ones load as the reader scrolls up. */
export const FIRST_PAGE_SIZE = 50;
/** Postgres' integer maximum: `before` this reads the newest page. */
const NEWEST = 2_147_483_647;

/**
 * A conversation's loaded window, ascending by seq. The first load reads the
 * newest page only; every later fetch (refocus, feed reset) reads forward from
 * the window's `through`, so paging and live patches compose: the feed may add
 * a message at any time, a refetch fills whatever it could have missed, and
 * merging is by id.
 */
export async function fetchMessageWindow(
  qc: QueryClient,
  conversationId: string,
  signal?: AbortSignal,
): Promise<PublicMessage[]> {
  const key = queryKeys.messages(conversationId);
  const pagingKey = queryKeys.messagePaging(conversationId);
  const cached = qc.getQueryData<PublicMessage[]>(key);
  const paging = qc.getQueryData<MessagePaging | null>(pagingKey);
  // The feed's copies are read after the fetch: one that arrived while it was in flight
  // (committed after the server read) must not be lost when the page lands.
  if (cached === undefined || !paging) {
    const { messages, hasOlder } = await listMessagesBefore(conversationId, NEWEST, { limit: FIRST_PAGE_SIZE, signal });
    qc.setQueryData<MessagePaging>(pagingKey, { through: messages.at(-1)?.seq ?? 0, hasOlder });
    const now = qc.getQueryData<PublicMessage[]>(key) ?? cached ?? [];
    return joinNewestPage(mergeMessages(now, recentMessagesFor(conversationId)), messages, hasOlder);
  }
  const fetched = await listAllMessages(conversationId, signal, paging.through);
  const through = Math.max(paging.through, fetched.at(-1)?.seq ?? 0);
  qc.setQueryData<MessagePaging>(pagingKey, (prev) => ({ hasOlder: prev?.hasOlder ?? paging.hasOlder, through }));
  const loaded = qc.getQueryData<PublicMessage[]>(key) ?? cached;
  // The feed's copies may predate a window that was since reloaded: keep only those inside it.
  const floor = paging.hasOlder && loaded.length ? loaded[0].seq : -Infinity;
  return mergeMessages(
    mergeMessages(
      loaded,
      recentMessagesFor(conversationId).filter((m) => m.seq >= floor),
    ),
    fetched,
  );
}

/** Adds the page before the window's oldest message; false when there was nothing (more) to load. */
export async function fetchOlderMessages(qc: QueryClient, conversationId: string): Promise<boolean> {
  const key = queryKeys.messages(conversationId);
  const pagingKey = queryKeys.messagePaging(conversationId);
  const current = qc.getQueryData<PublicMessage[]>(key);
  const state = qc.getQueryData<MessagePaging | null>(pagingKey);
  if (!current?.length || !state?.hasOlder) return false;
  const oldest = current[0].seq;
  // fetchQuery dedupes concurrent calls for the same boundary (a scroll burst, the hash search).
  const page = await qc.fetchQuery({
    queryKey: ["olderMessages", conversationId, oldest],
    queryFn: ({ signal }) => listMessagesBefore(conversationId, oldest, { limit: FIRST_PAGE_SIZE, signal }),
    staleTime: 0,
    gcTime: 0,
  });
  qc.setQueryData<PublicMessage[]>(key, (prev) => (prev ? mergeMessages(prev, page.messages) : prev));
  qc.setQueryData<MessagePaging | null>(pagingKey, (prev) => (prev ? { ...prev, hasOlder: page.hasOlder } : prev));
  return page.messages.length > 0;
}

export function useMessages(conversationId: string) {
  const qc = useQueryClient();
  return useQuery({
    queryKey: queryKeys.messages(conversationId),
    queryFn: ({ signal }) => fetchMessageWindow(qc, conversationId, signal),
  });
}

/** Whether older messages exist, and the loader of the page before the window (one request at a time). */
export function useOlderMessages(conversationId: string) {
  const qc = useQueryClient();
  const paging = useQuery({
    queryKey: queryKeys.messagePaging(conversationId),
    queryFn: () => qc.getQueryData<MessagePaging | null>(queryKeys.messagePaging(conversationId)) ?? null,
    staleTime: Infinity,
    gcTime: Infinity,
  });
  const loading = useIsFetching({ queryKey: ["olderMessages", conversationId] }) > 0;
  const loadOlder = useCallback(() => fetchOlderMessages(qc, conversationId), [qc, conversationId]);
  return { hasOlder: paging.data?.hasOlder ?? false, loading, loadOlder };
}

/** Local-only: filled by sends, the feed and conversation snapshots; never fetched on its own. */
export function useRuns(conversationId: string) {
  const qc = useQueryClient();
  const key = queryKeys.runs(conversationId);
  return useQuery({
    queryKey: key,
    queryFn: () => qc.getQueryData<RunMap>(key) ?? {},
    staleTime: Infinity,
    gcTime: Infinity,
  });
}

// ---------- background tasks ----------

// Focus refetches only stale data; a task list a second old is fresh enough.
const TASK_STALE_MS = 1000;

/**
 * The sheet's list (and the header badge). Polls as a safety net under the
 * feed: 3 s while something is active, 15 s otherwise, never while the tab is
 * hidden (React Query skips interval fetches then), and again on refocus.
 */
export function useTaskList(conversationId: TaskScope, options: { poll?: boolean } = {}) {
  const qc = useQueryClient();
  const key = queryKeys.taskList(conversationId);
  const poll = options.poll ?? true;
  return useQuery({
    queryKey: key,
    queryFn: async ({ signal }) => {
      const tasks = await listTasks({ conversationId, scope: "all", signal }).then(
        (r) => r.tasks,
        (err: unknown) => {
          // The conversation was deleted (a chat open in this tab, deleted elsewhere): its list answers 404 for good,
          // and its tasks' last states reach the page on the feed only, so the list is what the feed told.
          if (conversationId && err instanceof ResponseError && err.status === 404) return [];
          throw err;
        },
      );
      return mergeTaskSnapshot(qc.getQueryData<PublicTask[]>(key), tasks, conversationId, seenTasks(qc));
    },
    staleTime: TASK_STALE_MS,
    // `poll: false` (the sidebar's running count): the feed keeps the list current and a
    // reset refetches it; the sheet on the same page already polls as the safety net.
    refetchInterval: poll ? (query) => taskRefetchInterval(query.state.data) : false,
    refetchIntervalInBackground: false,
    refetchOnWindowFocus: poll,
  });
}

/** Details of one task while they are open; the feed invalidates them when a notice or publication lands. */
export function useTaskDetail(id: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.taskDetail(id),
    queryFn: async ({ signal }): Promise<PublicTaskDetail> => (await getTask(id, signal)).task,
    enabled,
    staleTime: TASK_STALE_MS,
    refetchInterval: (query) => (query.state.data ? taskRefetchInterval([query.state.data]) : false),
    refetchIntervalInBackground: false,
    refetchOnWindowFocus: true,
  });
}

/**
 * A task's timeline while its details are open. Keyed under the detail, so
 * whatever refreshes the detail (a feed event, a poll) refreshes it too.
 */
export function useTaskHistory(id: string, enabled: boolean) {
  return useInfiniteQuery({
    queryKey: [...queryKeys.taskDetail(id), "history"],
    queryFn: ({ pageParam, signal }) => getTaskHistory(id, { after: pageParam, signal }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    enabled,
    staleTime: TASK_STALE_MS,
    refetchOnWindowFocus: true,
  });
}

const CANCEL_KEY = ["tasks", "cancel"] as const;

/** A dictionary key where we have better words than the server's, else the server's message. */
function cancelErrorReason(error: unknown): {
  reason?: string;
  reasonKey?: "cancelUnavailable" | "errNetwork" | "errRateLimited";
  seconds?: number;
} {
  if (error instanceof ResponseError) {
    if (error.code === "unavailable" || error.status === 503) return { reasonKey: "cancelUnavailable" };
    if (error.status === 0) return { reasonKey: "errNetwork" };
    if (error.status === 429) return { reasonKey: "errRateLimited", seconds: error.retryAfter ?? 60 };
    return { reason: error.message };
  }
  return { reason: error instanceof Error ? error.message : String(error) };
}

/**
 * Cancel request. The button reads "Cancelling…" while this is pending (from
 * any component: see usePendingCancels) and afterwards from the server's
 * cancelRequested, so a failure rolls back by itself and a reload agrees.
 * Callbacks live on the mutation, not on mutate(), so they still run when the
 * row that started it has moved or unmounted.
 */
export function useCancelTask() {
  const qc = useQueryClient();
  return useMutation({
    mutationKey: CANCEL_KEY,
    mutationFn: async (task: PublicTask) => (await cancelTask(task.id)).task,
    onSuccess: (task) => {
      patchTask(qc, task);
    },
    onError: (error, task) => {
      const { reason, reasonKey, seconds } = cancelErrorReason(error);
      pushToast({
        tone: "error",
        key: "cancelFailed",
        vars: { title: task.title, reason: reason ?? "", seconds: seconds ?? "" },
        reasonKey,
      });
      // Whatever the server thinks now is the truth; don't wait for the next poll.
      void qc.invalidateQueries({ queryKey: queryKeys.taskLists });
    },
  });
}

/** Answers a task waiting for input; the worker hands it to the remote on its next claim. */
export function useAnswerInput() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ task, response }: { task: PublicTask; response: string }) =>
      (await answerTaskInput(task.id, response)).task,
    onSuccess: (task) => patchTask(qc, task),
  });
}

export function useSendInstructions() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ task, message }: { task: PublicTask; message: string }) =>
      (await sendTaskInstructions(task.id, message)).task,
    onSuccess: (task) => {
      patchTask(qc, task);
      // The pending list lives in the detail view only.
      void qc.invalidateQueries({ queryKey: queryKeys.taskDetail(task.id) });
    },
  });
}

/** Ids of tasks with a cancel request in flight from this tab. */
export function usePendingCancels(): ReadonlySet<string> {
  const ids = useMutationState({
    filters: { mutationKey: CANCEL_KEY, status: "pending" },
    select: (mutation) => (mutation.state.variables as PublicTask | undefined)?.id,
  });
  return new Set(ids.filter((id): id is string => typeof id === "string"));
}
