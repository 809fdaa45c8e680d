// Rename, pin and delete from the sidebar. The server's answer (and the feed
// event every other tab gets) is the truth; a failure leaves the list as it was
// and says why in a toast.

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import type { PublicConversation } from "@/lib/contract/shapes";
import { ResponseError, deleteConversation, updateConversation } from "./api";
import { removeConversation, upsertConversation } from "./cache";
import { getOpenConversation } from "./away";
import { pushToast } from "./toasts";
import type { MessageKey } from "@/lib/i18n/dictionaries";

function reasonOf(error: unknown): { reason?: string; reasonKey?: MessageKey; seconds?: number } {
  if (error instanceof ResponseError) {
    if (error.status === 0) return { reasonKey: "errNetwork" };
    return { reason: error.message };
  }
  return { reason: error instanceof Error ? error.message : String(error) };
}

function failed(key: MessageKey, error: unknown): void {
  const { reason, reasonKey } = reasonOf(error);
  pushToast({ tone: "error", key, vars: { reason: reason ?? "" }, reasonKey });
}

export function useRenameConversation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, title }: { id: string; title: string }) => updateConversation(id, { title }),
    onSuccess: (conversation) => upsertConversation(qc, conversation),
    onError: (error) => failed("renameFailed", error),
  });
}

export function usePinConversation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, pinned }: { id: string; pinned: boolean }) => updateConversation(id, { pinned }),
    onSuccess: (conversation) => upsertConversation(qc, conversation),
    onError: (error) => failed("pinFailed", error),
  });
}

export function useDeleteConversation() {
  const qc = useQueryClient();
  const router = useRouter();
  return useMutation({
    mutationFn: (conversation: PublicConversation) => deleteConversation(conversation.id),
    onSuccess: (_, conversation) => {
      removeConversation(qc, conversation.id);
      if (getOpenConversation() === conversation.id) router.push("/");
    },
    onError: (error, conversation) => {
      // Already gone (another tab deleted it): that is what was asked.
      if (error instanceof ResponseError && error.status === 404) {
        removeConversation(qc, conversation.id);
        return;
      }
      failed("deleteFailed", error);
    },
  });
}
