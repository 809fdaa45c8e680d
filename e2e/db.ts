import path from "node:path";
import pg from "pg";
import { ensureDatabase } from "../lib/db/ensure";

/**
 * The e2e server's own database, for seeding what a test needs but does not test: the embedded cluster that
 * playwright.config.ts has scripts/start.ts run in E2E_DATA_DIR (attached to, never started or stopped here), or
 * DATABASE_URL when the server was given one.
 */
async function databaseUrl(): Promise<string> {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir) throw new Error("E2E_DATA_DIR is not set (playwright.config.ts sets it)");
  return (await ensureDatabase({ pgDataDir: path.join(dataDir, "pg"), migrate: false })).url;
}

async function withClient<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: await databaseUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * `n` finished chat turns ("turn 1" … "turn n", each with a stored assistant reply) appended to a conversation in one
 * statement: the conversation's seq moves past them as appendMessage would move it, so later messages follow them.
 * No feed events: the page is loaded after seeding.
 */
export async function seedChatTurns(conversationId: string, n: number): Promise<void> {
  await withClient(async (client) => {
    const { rowCount } = await client.query(
      `WITH bumped AS (
         UPDATE "conversation" SET "messageSeq" = "messageSeq" + $2 * 2, "lastReadSeq" = "messageSeq" + $2 * 2, "updatedAt" = now()
         WHERE id = $1 AND "deletedAt" IS NULL
         RETURNING "ownerId", "messageSeq" - $2 * 2 AS base)
       INSERT INTO "message" ("conversationId", "ownerId", seq, "createdAt", kind, content)
       SELECT $1, bumped."ownerId", bumped.base + g, date_trunc('milliseconds', now()) + g * interval '1 millisecond',
         CASE WHEN g % 2 = 1 THEN 'user' ELSE 'assistant' END,
         CASE WHEN g % 2 = 1 THEN 'turn ' || (g + 1) / 2 ELSE 'You said: "turn ' || g / 2 || '"' END
       FROM bumped, generate_series(1, $2 * 2) AS g`,
      [conversationId, n],
    );
    if (rowCount !== n * 2) throw new Error(`seeded ${rowCount} messages into ${conversationId}, expected ${n * 2}`);
  });
}
