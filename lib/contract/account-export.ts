import type { PublicConversation, PublicMessage, PublicPublication } from "./shapes";
import type { PublicTask } from "./task";

/**
 * GET /api/account/export: what an account holds, as the same whitelisted shapes
 * the API serves (no leases, tokens, remote refs, driver data or hidden
 * prompts). Bounded: past a cap the newest items are kept and `truncated` names
 * the part that was cut.
 */
export const EXPORT_LIMITS = { conversations: 1_000, messages: 20_000, tasks: 2_000, reports: 2_000 } as const;

export interface AccountExport {
  format: "herald-export-1";
  exportedAt: string;
  account: { name: string; email: string; createdAt: string; language: string | null; timeZone: string | null };
  conversations: (PublicConversation & { messages: PublicMessage[] })[];
  tasks: PublicTask[];
  reports: (PublicPublication & { taskId: string; conversationId: string })[];
  truncated: (keyof typeof EXPORT_LIMITS)[];
}
