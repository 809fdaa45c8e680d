import { db, type Tx } from "@/lib/db/kysely";
import { sql } from "kysely";

// Every write of the sign-in and request throttle buckets (lib/auth/throttle.ts says how they count).

/** One hit on a bucket: an upsert under the row lock, so concurrent hits cannot overshoot. */
export async function hitBucket(
  key: string,
  rule: { window: number; max: number },
): Promise<{ hits: number; retryAfter: number }> {
  const windowOver = sql<boolean>`auth_throttle."windowStart" <= now() - make_interval(secs => ${rule.window}::float8)`;
  return db()
    .insertInto("auth_throttle")
    .values({ key, hits: 1, windowStart: sql<Date>`now()` })
    .onConflict((oc) =>
      oc.column("key").doUpdateSet({
        hits: sql<number>`CASE WHEN ${windowOver} THEN 1 ELSE LEAST(auth_throttle.hits + 1, ${rule.max + 1}::int) END`,
        windowStart: sql<Date>`CASE WHEN ${windowOver} THEN now() ELSE auth_throttle."windowStart" END`,
      }),
    )
    .returning([
      "hits",
      sql<number>`GREATEST(1, ceil(extract(epoch FROM "windowStart" + make_interval(secs => ${rule.window}::float8) - now())))::int`.as(
        "retryAfter",
      ),
    ])
    .executeTakeFirstOrThrow();
}

export async function deleteBucket(key: string): Promise<void> {
  await db().deleteFrom("auth_throttle").where("key", "=", key).execute();
}

/** Up to `batch` buckets whose window started before `seconds` ago. */
export async function pruneBuckets(seconds: number, batch: number): Promise<void> {
  await db()
    .deleteFrom("auth_throttle")
    .where(
      "key",
      "in",
      db()
        .selectFrom("auth_throttle")
        .select("key")
        .where("windowStart", "<", sql<Date>`now() - make_interval(secs => ${seconds}::float8)`)
        .limit(batch),
    )
    .execute();
}

/**
 * An account's buckets, on its deletion: per address ("email|…", "<bucket>|email|…") and per account ("<what>|<id>").
 */
export async function deleteAccountBuckets(tx: Tx, byEmail: string, userId: string): Promise<void> {
  const endsWith = (suffix: string) => sql<boolean>`right(key, ${suffix.length}) = ${suffix}`;
  await tx
    .deleteFrom("auth_throttle")
    .where((eb) =>
      eb.or([
        eb("key", "=", byEmail),
        eb(
          "key",
          "in",
          tx
            .selectFrom("auth_throttle")
            .select("key")
            .where((w) => w.or([endsWith(`|${byEmail}`), endsWith(`|${userId}`)])),
        ),
      ]),
    )
    .execute();
}

/** Locks the account's user row last, as every writer does; its address, or undefined when it is gone. */
export async function lockUser(tx: Tx, userId: string): Promise<string | undefined> {
  const user = await tx.selectFrom("user").select("email").where("id", "=", userId).forUpdate().executeTakeFirst();
  return user?.email;
}

/** better-auth's rows of the account: sessions, sign-in accounts, the user, and reset tokens (their value is the id). */
export async function deleteUser(tx: Tx, userId: string): Promise<void> {
  await tx.deleteFrom("session").where("userId", "=", userId).execute();
  await tx.deleteFrom("account").where("userId", "=", userId).execute();
  await tx.deleteFrom("user").where("id", "=", userId).execute();
  await tx.deleteFrom("verification").where("value", "=", userId).execute();
}

/** The session of this token with its user, in one joined query (lib/auth/session-lookup.ts: the per-request check). */
export async function sessionByToken(token: string) {
  return db()
    .selectFrom("session as s")
    .innerJoin("user as u", "u.id", "s.userId")
    .select(["u.id", "u.name", "u.email", "s.id as sessionId", "s.expiresAt"])
    .where("s.token", "=", token)
    .executeTakeFirst();
}
