import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/kysely";
import { createConversationFor, signUp } from "@/tests/helpers";
import { sql, type RawBuilder } from "kysely";
import { matchingConversations, searchConversations, trigramIndexable, UNINDEXED_SCAN_MESSAGES } from "./search";

/** `n` visible assistant messages of a reply's length in one conversation, oldest first; the oldest says `first`. */
async function fill(ownerId: string, conversationId: string, n: number, first: string): Promise<void> {
  await sql`
    INSERT INTO "message" ("conversationId", "ownerId", seq, kind, content, "createdAt")
    SELECT ${conversationId}, ${ownerId}, s, 'assistant',
      CASE WHEN s = 1 THEN ${first} ELSE 'market report ' || s || ' ' || repeat(md5(s::text) || ' ', 8) END,
      now() - make_interval(secs => ${n}::int - s)
    FROM generate_series(1, ${n}::int) s`.execute(db());
  await db().updateTable("conversation").set({ messageSeq: n }).where("id", "=", conversationId).execute();
  await sql`ANALYZE "message"`.execute(db());
}

async function planOf(query: RawBuilder<unknown>): Promise<string> {
  const { rows } = await sql<{ "QUERY PLAN": unknown }>`EXPLAIN (FORMAT JSON) ${query}`.execute(db());
  return JSON.stringify(rows[0]["QUERY PLAN"]);
}

describe("conversation search on a large account", () => {
  it("a miss is answered from the trigram index, not by reading the account's messages", async () => {
    const u = await signUp("SearchIndex");
    await fill(u.id, await createConversationFor(u), 30_000, "the oldest words");
    const plan = await planOf(matchingConversations(u.id, "nowhere to be found"));
    expect(plan, plan).toContain("message_search_trgm_idx");
    expect(await searchConversations(u.id, "nowhere to be found")).toEqual([]);
  });

  it("an indexable query finds the oldest message of a long conversation; a one- or two-letter one looks through the newest messages only", async () => {
    const u = await signUp("SearchBound");
    const conv = await createConversationFor(u, "Plain");
    await fill(u.id, conv, UNINDEXED_SCAN_MESSAGES + 10, "qz marks the zqxw spot");
    expect(trigramIndexable("zqxw")).toBe(true);
    expect(trigramIndexable("qz")).toBe(false);
    expect(trigramIndexable("电池储能")).toBe(false);
    const found = await searchConversations(u.id, "zqxw");
    expect(found.map((h) => [h.conversation.id, h.match, h.seq])).toEqual([[conv, "message", 1]]);
    expect(found[0].snippet).toContain("zqxw");
    // Older than the newest UNINDEXED_SCAN_MESSAGES: not looked at for a query the index cannot serve.
    expect(await searchConversations(u.id, "qz")).toEqual([]);
    // A short query still finds what is recent.
    expect((await searchConversations(u.id, "rt")).map((h) => h.seq)).toEqual([UNINDEXED_SCAN_MESSAGES + 10]);
  });
});
