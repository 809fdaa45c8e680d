import type { Tx } from "@/lib/db/kysely";
import { sql } from "kysely";
import { ApiError } from "@/lib/errors/api-error";
import { limits, limitsOff } from "./config";
import { lockAccount } from "./quotas";

/** The account's conversation figures, the one being created not yet among them. */
interface ConversationAdmission {
  /** Conversations not deleted. */
  live: number;
  /** Conversations created in the rolling minute, deleted ones included (create-and-delete is still creating). */
  recent: number;
  /** Seconds until the oldest of `recent` leaves the window. */
  retry: number;
}

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
  const {
    rows: [a],
  } = await sql<ConversationAdmission>`
    SELECT count(*) FILTER (WHERE "deletedAt" IS NULL)::int AS live,
      count(*) FILTER (WHERE "createdAt" > now() - interval '60 seconds')::int AS recent,
      greatest(1, ceil(60 - extract(epoch FROM now() - min("createdAt") FILTER (WHERE "createdAt" > now() - interval '60 seconds'))))::int AS retry
    FROM "conversation" WHERE "ownerId" = ${ownerId}`.execute(tx);
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
