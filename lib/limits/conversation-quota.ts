import type { Tx } from "@/lib/db/kysely";
import { ApiError } from "@/lib/errors/api-error";
import { limits, limitsOff } from "./config";
import { conversationAdmission, lockAccount } from "./sql";

/**
 * Admits one more conversation (a chat, a draft or an Agent Protocol thread: all
 * are conversation rows) or throws the 429. Call it in the transaction that inserts
 * the row, before the insert: the account's row lock serialises its creations, so
 * concurrent requests cannot both take the last unit; the counts are read in a
 * statement after the lock (one that waited for it would count from an older
 * snapshot). Served by conversation_owner_created_idx.
 */
export async function admitConversation(tx: Tx, ownerId: string): Promise<void> {
  if (limitsOff()) return;
  const l = limits();
  await lockAccount(tx, ownerId);
  const a = await conversationAdmission(tx, ownerId);
  if (a.recent >= l.conversationsPerMinute) {
    throw new ApiError(
      "rate_limited",
      `Too many conversations created in the last minute. Try again in ${a.retry} s.`,
      undefined,
      a.retry,
    );
  }
  if (a.live >= l.conversations) {
    throw new ApiError(
      "quota_exceeded",
      `You have ${l.conversations} conversations, the most an account may keep. Delete some, then try again.`,
      undefined,
      60,
    );
  }
}
