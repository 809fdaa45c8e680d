-- Hand-written: conversation search (lib/chat/search.ts) matches with ILIKE '%q%'.
-- A trigram index finds the few messages a query can match instead of reading
-- every message of the account (a miss read them all). Partial on exactly what
-- search reads: visible user turns, replies and report bodies.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX message_search_trgm_idx ON "message" USING gin (content gin_trgm_ops)
  WHERE NOT hidden AND kind IN ('user', 'assistant', 'body');

-- Hand-written: conversation admission (lib/limits/conversation-quota.ts) counts an
-- account's conversations created in the last minute and those not deleted, from
-- the index alone.
CREATE INDEX conversation_owner_created_idx ON "conversation" ("ownerId", "createdAt") INCLUDE ("deletedAt");
