// Query hooks. The feed keeps these caches current; the query functions are
// for first load, refocus and `reset`, and they merge with what the feed
// delivered while they were in flight.

import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { PublicConversation, PublicMessage } from "@/lib/api/shapes";
import { ApiError, getConversation, listAllMessages, listConversations } from "./api";
import {
  mergeConversationSnapshot,
  mergeMessages,
  queryKeys,
  recentMessagesFor,
  reconcileActiveRuns,
  type RunMap,
} from "./cache";

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
