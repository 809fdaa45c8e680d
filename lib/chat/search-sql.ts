import { db } from "@/lib/db/kysely";
import { sql, type RawBuilder } from "kysely";
import type { ConversationRow } from "./sql";

// The conversation search's statements (lib/chat/search.ts decides the pattern and which path a query takes).

/** A conversation the search found, with where: its title, or its newest matching message and a snippet of it. */
export type SearchHitRow = ConversationRow & { matchSeq: number | null; snippet: string | null; titleHit: boolean };

/**
 * The account's conversations holding a visible message matching `pattern`: through the trigram index when
 * `indexable`, else among the account's newest `scanMessages` messages.
 */
export function matchingConversationsSql(
  ownerId: string,
  pattern: string,
  indexable: boolean,
  scanMessages: number,
): RawBuilder<{ conversationId: string }> {
  // The literals repeat the partial index's predicate, so the planner may use it.
  return indexable
    ? sql`
        SELECT DISTINCT "conversationId" FROM "message"
        WHERE "ownerId" = ${ownerId} AND NOT hidden AND kind IN ('user', 'assistant', 'body') AND content ILIKE ${pattern}`
    : sql`
        SELECT DISTINCT "conversationId" FROM (
          SELECT "conversationId", hidden, kind, content FROM "message" WHERE "ownerId" = ${ownerId}
          ORDER BY "createdAt" DESC LIMIT ${scanMessages}::int) recent
        WHERE NOT hidden AND kind IN ('user', 'assistant', 'body') AND content ILIKE ${pattern}`;
}

/**
 * The live conversations whose title matches `pattern` or that `matching` found, titles first, then newest activity;
 * only the found ones are walked back for their newest match and a snippet (`before` characters ahead of `q`,
 * `chars` long).
 */
export async function searchConversationRows(
  ownerId: string,
  q: string,
  pattern: string,
  matching: RawBuilder<{ conversationId: string }>,
  limit: number,
  snippet: { before: number; chars: number },
): Promise<SearchHitRow[]> {
  const { rows } = await sql<SearchHitRow>`
    WITH matching AS MATERIALIZED (${matching}),
    newest AS (
      SELECT x."conversationId", m.seq, m.snippet FROM matching x
      CROSS JOIN LATERAL (
        SELECT seq, substr(content, greatest(1, strpos(lower(content), lower(${q})) - ${snippet.before}), ${snippet.chars}) AS snippet
        FROM "message"
        WHERE "conversationId" = x."conversationId" AND "ownerId" = ${ownerId} AND NOT hidden
          AND kind IN ('user', 'assistant', 'body') AND content ILIKE ${pattern}
        ORDER BY seq DESC LIMIT 1
      ) m
    )
    SELECT c.*, (c.title ILIKE ${pattern}) AS "titleHit", m.seq AS "matchSeq", m.snippet
    FROM "conversation" c
    LEFT JOIN newest m ON m."conversationId" = c.id AND NOT (c.title ILIKE ${pattern})
    WHERE c."ownerId" = ${ownerId} AND c."deletedAt" IS NULL
      AND (c.title ILIKE ${pattern} OR m.seq IS NOT NULL)
    ORDER BY "titleHit" DESC, c."updatedAt" DESC, c.id DESC
    LIMIT ${limit}`.execute(db());
  return rows;
}
