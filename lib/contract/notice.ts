import type { Notice } from "@/lib/db/generated/client.ts";
import type { PublicNotice } from "./shapes";

/** The wire form of a stored notice (docs/api.md#tasks). */
export function toPublicNotice(n: Notice): PublicNotice {
  return {
    id: n.id,
    taskId: n.taskId,
    conversationId: n.conversationId,
    key: n.key,
    outcome: n.outcome,
    publicationId: n.publicationId,
    text: n.text,
    createdAt: n.createdAt.toISOString(),
  };
}
