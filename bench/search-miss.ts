// A conversation search that finds nothing, on an account with many messages
// (docs/benchmarks.md#conversation-search): `npx tsx bench/search-miss.ts [messages] [rounds]`.
// Another account holds as many messages again, so an index shared by all accounts
// is measured with rows it must not return.

import { performance } from "node:perf_hooks";
import { sql } from "kysely";
import { benchAccount, runStandalone } from "./fresh";

const WORDS = (
  "report market price energy battery storage policy research history summary analysis growth supply demand " +
  "revenue forecast chart table source review answer question region country company product customer plan"
).split(" ");

async function fill(ownerId: string, messages: number, perConversation: number): Promise<void> {
  const { getDb } = await import("../lib/db/client");
  const { db } = await import("../lib/db/kysely");
  for (let c = 0; c < Math.ceil(messages / perConversation); c++) {
    const conv = await getDb().conversation.create({ data: { ownerId, title: `Chat ${c}` } });
    // ~400 characters of words per message, as replies and reports run longer than the chat's turns.
    await sql`
      INSERT INTO "message" ("conversationId", "ownerId", seq, kind, content)
      SELECT ${conv.id}, ${ownerId}, s, (ARRAY['user','assistant','body'])[1 + s % 3],
        (SELECT string_agg((${WORDS}::text[])[1 + floor(random() * ${WORDS.length})::int], ' ') FROM generate_series(1, 60 + 0 * s))
      FROM generate_series(1, ${perConversation}::int) s`.execute(db());
    await db().updateTable("conversation").set({ messageSeq: perConversation }).where("id", "=", conv.id).execute();
  }
  await sql`ANALYZE "message"`.execute(db());
  await sql`ANALYZE "conversation"`.execute(db());
}

async function timeQuery(
  ownerId: string,
  q: string,
  rounds: number,
): Promise<{ q: string; medianMs: number; p90Ms: number; hits: number }> {
  const { searchConversations } = await import("../lib/chat/search");
  const times: number[] = [];
  let hits = 0;
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    hits = (await searchConversations(ownerId, q)).length;
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => Math.round(times[Math.min(times.length - 1, Math.floor(p * times.length))] * 10) / 10;
  return { q, medianMs: at(0.5), p90Ms: at(0.9), hits };
}

async function searchMissBench(messages: number, rounds: number) {
  const perConversation = 250;
  const { user } = await benchAccount("searcher");
  const { user: other } = await benchAccount("neighbour");
  await fill(user.id, messages, perConversation);
  await fill(other.id, messages, perConversation);
  // Misses (long, three letters, two letters, Chinese), then hits (a phrase in every conversation, one letter).
  const queries = ["no such phrase anywhere", "zqx", "zq", "电池储能", "battery storage", "e"];
  const results = [];
  for (const q of queries) results.push(await timeQuery(user.id, q, rounds));
  return { messages, conversations: Math.ceil(messages / perConversation), rounds, results };
}

const [messages = "50000", rounds = "20"] = process.argv.slice(2);
runStandalone({ HERALD_LIMITS: "off" }, () => searchMissBench(Number(messages), Number(rounds)));
