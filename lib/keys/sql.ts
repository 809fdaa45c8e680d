import type { DB } from "@/lib/db/generated/kysely.ts";
import { db, type Tx } from "@/lib/db/kysely";
import { sql, type Insertable, type Selectable } from "kysely";

/** An API key row as Kysely reads it (Prisma's `ApiKey`). */
export type ApiKeyRow = Selectable<DB["api_key"]>;

/**
 * Locks the account row (it orders concurrent creates, so the cap holds under a burst) and reads a new key's expiry
 * `days` from now off the database clock (/api/ap compares it with now()); null when it never expires.
 */
export async function lockOwnerForKey(tx: Tx, ownerId: string, days: number | null): Promise<Date | null> {
  const { expiresAt } = await tx
    .selectFrom("user")
    .select(
      sql<Date | null>`CASE WHEN ${days}::int IS NULL THEN NULL ELSE now() + make_interval(days => ${days}::int) END`.as(
        "expiresAt",
      ),
    )
    .where("id", "=", ownerId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return expiresAt;
}

export async function countKeys(tx: Tx, ownerId: string): Promise<number> {
  const { n } = await tx
    .selectFrom("api_key")
    .select(sql<number>`count(*)::int`.as("n"))
    .where("ownerId", "=", ownerId)
    .executeTakeFirstOrThrow();
  return n;
}

export async function insertKey(
  tx: Tx,
  key: Pick<Insertable<DB["api_key"]>, "ownerId" | "name" | "prefix" | "hash" | "expiresAt">,
): Promise<ApiKeyRow> {
  return tx.insertInto("api_key").values(key).returningAll().executeTakeFirstOrThrow();
}

/**
 * Moves a key's last use to now() unless it moved less than `granularityMs` ago: the guard keeps two web processes
 * from both writing.
 */
export async function touchKey(id: string, granularityMs: number): Promise<void> {
  await db()
    .updateTable("api_key")
    .set({ lastUsedAt: sql<Date>`now()` })
    .where("id", "=", id)
    .where((eb) =>
      eb.or([
        eb("lastUsedAt", "is", null),
        eb("lastUsedAt", "<", sql<Date>`now() - ${granularityMs} * interval '1 millisecond'`),
      ]),
    )
    .execute();
}

/** The account's API keys, on its deletion. */
export async function deleteOwnerKeys(tx: Tx, ownerId: string): Promise<void> {
  await tx.deleteFrom("api_key").where("ownerId", "=", ownerId).execute();
}

/**
 * The account and key an API key's hash names, unless the key has expired by the database clock that set its expiry
 * (a revoked key's row is gone).
 */
export async function keyUserByHash(hash: string) {
  return db()
    .selectFrom("api_key as k")
    .innerJoin("user as u", "u.id", "k.ownerId")
    .select(["k.id as keyId", "k.lastUsedAt", "u.id", "u.name", "u.email"])
    .where("k.hash", "=", hash)
    .where((eb) => eb.or([eb("k.expiresAt", "is", null), eb("k.expiresAt", ">", sql<Date>`now()`)]))
    .executeTakeFirst();
}
