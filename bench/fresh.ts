import { randomUUID } from "node:crypto";
import { createTestDatabaseOn } from "../tests/db";

/**
 * Runs `fn` against a new, migrated database on the bench's server, with this
 * process's Prisma client pointed at it, so a figure starts from an empty
 * schema (no outbox or due work left by an earlier figure). Dropped afterwards.
 */
export async function withFreshDatabase<T>(serverUrl: string, fn: (url: string) => Promise<T>): Promise<T> {
  const { closeDb } = await import("../lib/db/client");
  const fresh = await createTestDatabaseOn(serverUrl);
  const before = process.env.DATABASE_URL;
  await closeDb();
  process.env.DATABASE_URL = fresh.url;
  try {
    return await fn(fresh.url);
  } finally {
    await closeDb();
    process.env.DATABASE_URL = before;
    await fresh.stop();
  }
}

/** An account and a conversation written directly (better-auth's instance is bound to the first database). */
export async function benchAccount(name: string): Promise<{ user: { id: string }; conv: string }> {
  const { getDb } = await import("../lib/db/client");
  const user = await getDb().user.create({
    data: { id: randomUUID(), name, email: `${name}-${randomUUID().slice(0, 8)}@example.test` },
  });
  const conv = await getDb().conversation.create({ data: { ownerId: user.id, title: name } });
  return { user, conv: conv.id };
}

/**
 * Runs one bench file on its own (`npx tsx bench/<file>.ts …`) against a
 * throwaway embedded database: prints what `fn` returns as JSON, exits 0, or 1
 * with the error.
 */
export function runStandalone(env: Record<string, string>, fn: () => Promise<unknown>): void {
  (async () => {
    const { startTestDatabase } = await import("../tests/db");
    const db = await startTestDatabase();
    process.env.DATABASE_URL = db.url;
    Object.assign(process.env, env);
    try {
      console.log(JSON.stringify(await fn(), null, 2));
    } finally {
      const { closeDb } = await import("../lib/db/client");
      await closeDb();
      await db.stop();
    }
    process.exit(0);
  })().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
