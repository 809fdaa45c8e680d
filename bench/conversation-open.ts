// Opening a conversation: the first page's request (GET …/messages?before=<max>&limit=50,
// what the chat sends when it opens) through the real route handler — session
// cookie, route(), zod, the query — for a conversation of 5,000 messages and one
// of 50. The page is read newest-first through (conversationId, seq), so the two
// should cost the same.
import { randomUUID } from "node:crypto";
import path from "node:path";
import { sql } from "kysely";
import { runStandalone } from "./fresh";
import type { TestUser } from "../tests/helpers";

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

export interface ConversationOpenResult {
  firstPageMs: { small: { n: number; p50: number; p99: number }; large: { n: number; p50: number; p99: number } };
  messages: { small: number; large: number };
  /** p50 of the large conversation over p50 of the small one. */
  ratio: number;
}

export async function conversationOpenBench(user: TestUser, rounds = 60): Promise<ConversationOpenResult> {
  const { getDb } = await import("../lib/db/client");
  const { db: kysely } = await import("../lib/db/kysely");
  const { call } = await import("../tests/helpers");
  const route = await import("../app/api/conversations/[id]/messages/route");
  const db = getDb();

  async function conversationWith(n: number): Promise<string> {
    const c = await db.conversation.create({ data: { ownerId: user.id, title: `bench ${n}` } });
    // One statement: seeding is not what is measured. Every tenth row is a hidden prompt, as narration leaves them.
    await sql`
      INSERT INTO "message" (id, "conversationId", "ownerId", seq, kind, content, hidden, "createdAt")
      SELECT ${randomUUID()} || '-' || i, ${c.id}, ${user.id}, i, CASE WHEN i % 2 = 0 THEN 'assistant' ELSE 'user' END,
             repeat('benchmark message ', 20), i % 10 = 0, now() - make_interval(secs => ${n} - i)
      FROM generate_series(1, ${n}) AS i`.execute(kysely());
    await db.conversation.update({ where: { id: c.id }, data: { messageSeq: n } });
    return c.id;
  }

  // 55 rows, 5 of them hidden: 50 visible, so both first pages carry the same 50 messages.
  const small = await conversationWith(55);
  const large = await conversationWith(5000);
  // As autovacuum would have by now on a live table: a plan from fresh statistics.
  await sql`ANALYZE "message"`.execute(kysely());
  const open = async (id: string) => {
    const t0 = performance.now();
    const r = await call(route.GET, {
      user,
      path: `/api/conversations/${id}/messages?before=2147483647&limit=50`,
      params: { id },
    });
    const ms = performance.now() - t0;
    if (r.status !== 200) throw new Error(`first page: ${r.status}`);
    return { ms, count: (r.json.messages as unknown[]).length };
  };
  // Warm-up (plans, pool, JIT), then interleaved so drift hits both alike.
  for (let i = 0; i < 5; i++) await Promise.all([open(small), open(large)]);
  const times = { small: [] as number[], large: [] as number[] };
  let counts = { small: 0, large: 0 };
  for (let i = 0; i < rounds; i++) {
    // Alternating which goes first, so neither always runs on a warmer path.
    let a, b;
    if (i % 2) {
      a = await open(small);
      b = await open(large);
    } else {
      b = await open(large);
      a = await open(small);
    }
    times.small.push(a.ms);
    times.large.push(b.ms);
    counts = { small: a.count, large: b.count };
  }
  const summary = (xs: number[]) => ({
    n: xs.length,
    p50: Number(pct(xs, 50).toFixed(2)),
    p99: Number(pct(xs, 99).toFixed(2)),
  });
  const s = summary(times.small);
  const l = summary(times.large);
  return {
    firstPageMs: { small: s, large: l },
    messages: { small: counts.small, large: counts.large },
    ratio: Number((l.p50 / s.p50).toFixed(2)),
  };
}

export function formatConversationOpen(r: ConversationOpenResult): string {
  return `opening a conversation (first page of 50 through the API): 5,000 messages p50 ${r.firstPageMs.large.p50} ms vs 50 messages p50 ${r.firstPageMs.small.p50} ms — ratio ${r.ratio}`;
}

// `npx tsx bench/conversation-open.ts [rounds]` on its own throwaway database.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const rounds = Number(process.argv[2] ?? 60);
  runStandalone({ HERALD_AUTH_RATE_LIMIT: "off" }, async () => {
    const { signUp } = await import("../tests/helpers");
    return { conversationOpen: await conversationOpenBench(await signUp("OpenBench"), rounds) };
  });
}
