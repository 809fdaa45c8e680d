import { consume } from "@/lib/auth/throttle";
import { ApiError } from "@/lib/errors/api-error";
import { limits, limitsOff } from "@/lib/limits/config";
import type { RawBuilder } from "kysely";
import { toPublicConversation } from "@/lib/contract/message";
import type { PublicConversation } from "@/lib/contract/shapes";
import { matchingConversationsSql, searchConversationRows } from "./search-sql";

export interface ConversationSearchHit {
  conversation: PublicConversation;
  /** Where the text was found: the title wins over a message. */
  match: "title" | "message";
  /** The newest matching message (a user turn, a reply or a report), when the title did not match. */
  seq: number | null;
  /** Up to ~160 characters of that message around the first match. */
  snippet: string | null;
}

/** `q` as a literal ILIKE pattern: its own `%`, `_` and `\` match themselves. */
export function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const SNIPPET_BEFORE = 40;
const SNIPPET_CHARS = 160;

/** Trigrams come from runs of letters and digits (the cluster's C locale: ASCII ones); three in a row make one. */
export function trigramIndexable(q: string): boolean {
  return /[A-Za-z0-9]{3}/.test(q);
}

/**
 * How many of the account's newest messages a query the trigram index cannot serve
 * (one or two letters, most Chinese text) looks through: such a miss would otherwise
 * read every message the account ever had.
 */
export const UNINDEXED_SCAN_MESSAGES = 20_000;

/**
 * The account's conversations holding a visible message that contains `q`: through
 * the trigram index when `q` has a trigram, else among the newest messages.
 */
export function matchingConversations(
  ownerId: string,
  q: string,
  pattern = likePattern(q),
): RawBuilder<{ conversationId: string }> {
  return matchingConversationsSql(ownerId, pattern, trigramIndexable(q), UNINDEXED_SCAN_MESSAGES);
}

/**
 * The account's conversations whose title or visible text contains `q`
 * (case-insensitive), titles first, then newest activity. One result per
 * conversation. Matching is ILIKE on an escaped pattern — no regex, no user
 * syntax — so each row costs at most its length times the bounded query
 * length, and the scan never leaves the account's own rows.
 *
 * The conversations with a matching message are found first, through the trigram
 * index (message_search_trgm_idx: a miss reads next to nothing) or, for a query it
 * cannot serve, among the account's newest UNINDEXED_SCAN_MESSAGES; only those are
 * then walked back for their newest match and its snippet.
 */
export async function searchConversations(ownerId: string, q: string, limit = 20): Promise<ConversationSearchHit[]> {
  await throttleSearch(ownerId);
  const pattern = likePattern(q);
  const matching = matchingConversations(ownerId, q, pattern);
  const rows = await searchConversationRows(ownerId, q, pattern, matching, limit, {
    before: SNIPPET_BEFORE,
    chars: SNIPPET_CHARS,
  });
  return rows.map((r) => ({
    conversation: toPublicConversation(r),
    match: r.titleHit ? "title" : "message",
    seq: r.titleHit ? null : r.matchSeq,
    snippet: r.titleHit ? null : (r.snippet?.replace(/\s+/g, " ").trim() ?? null),
  }));
}

/**
 * Searches per account in a fixed minute window, counted in Postgres (every web
 * process shares the bucket) before the scan. The sidebar searches as one types,
 * debounced: a person stays far below the limit, a script looping over it does not.
 */
async function throttleSearch(ownerId: string): Promise<void> {
  if (limitsOff()) return;
  const { allowed, retryAfter } = await consume(`search|${ownerId}`, { window: 60, max: limits().searchesPerMinute });
  if (!allowed) {
    const retry = retryAfter ?? 60;
    throw new ApiError(
      "rate_limited",
      `Too many searches in the last minute. Try again in ${retry} s.`,
      undefined,
      retry,
    );
  }
}
