// Query hooks. The feed keeps these caches current; the query functions are
// for first load, refocus and `reset`, and they merge with what the feed
// delivered while they were in flight.

import { useMutation, useMutationState, useQuery, useQueryClient } from "@tanstack/react-query";
import type { PublicConversation, PublicMessage } from "@/lib/contract/shapes";
import type { PublicTaskDetail } from "@/lib/contract/shapes";
import { answerTaskInput, ApiError, cancelTask, getConversation, getTask, listAllMessages, listConversations, listTasks } from "./api";
import {
  mergeConversationSnapshot,
  mergeMessages,
  patchTask,
  queryKeys,
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
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
    initialData: initial,
    // The server-rendered copy has the title but not the active runs: fetch once anyway.
    initialDataUpdatedAt: 0,
  });
}

export function useMessages(conversationId: string) {
  const qc = useQueryClient();
  const key = queryKeys.messages(conversationId);
  return useQuery({
    queryKey: key,
    queryFn: async ({ signal }) => {
      const fetched = await listAllMessages(conversationId, signal);
      const cached = qc.getQueryData<PublicMessage[]>(key) ?? [];
      return mergeMessages(mergeMessages(cached, recentMessagesFor(conversationId)), fetched);
    },
  });
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
export function useTaskList(conversationId: TaskScope) {
  const qc = useQueryClient();
  const key = queryKeys.taskList(conversationId);
  return useQuery({
    queryKey: key,
    queryFn: async ({ signal }) => {
      const { tasks } = await listTasks({ conversationId, scope: "all", signal });
      return mergeTaskSnapshot(qc.getQueryData<PublicTask[]>(key), tasks, conversationId);
    },
    staleTime: TASK_STALE_MS,
    refetchInterval: (query) => taskRefetchInterval(query.state.data),
    refetchIntervalInBackground: false,
    refetchOnWindowFocus: true,
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

const CANCEL_KEY = ["tasks", "cancel"] as const;

/** A dictionary key where we have better words than the server's, else the server's message. */
function cancelErrorReason(error: unknown): { reason?: string; reasonKey?: "cancelUnavailable" | "errNetwork" | "errRateLimited"; seconds?: number } {
  if (error instanceof ApiError) {
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
      pushToast({ tone: "error", key: "cancelFailed", vars: { title: task.title, reason: reason ?? "", seconds: seconds ?? "" }, reasonKey });
      // Whatever the server thinks now is the truth; don't wait for the next poll.
      void qc.invalidateQueries({ queryKey: queryKeys.taskLists });
    },
  });
}

/** Answers a task waiting for input; the worker hands it to the remote on its next claim. */
export function useAnswerInput() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ task, response }: { task: PublicTask; response: string }) => (await answerTaskInput(task.id, response)).task,
    onSuccess: (task) => patchTask(qc, task),
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
