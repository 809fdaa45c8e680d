import pg from "pg";
import { Prisma } from "./generated/client.ts";

/** A unique-constraint violation, whether raised by `pg` (23505: every Kysely statement) or by a Prisma model call (P2002). */
export function isUniqueViolation(err: unknown): boolean {
  if (err instanceof pg.DatabaseError) return err.code === "23505";
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002";
}

/** SQLSTATEs after which Postgres has rolled the whole transaction back and running it again may succeed. */
const TRANSIENT_SQLSTATES = new Set(["40P01", "40001"]);

/**
 * The SQLSTATE (40P01 deadlock, 40001 serialization failure) when `err` says Postgres aborted the transaction for
 * a reason a second run may not meet; null otherwise. Every transaction is Kysely's `transaction`, on `pg`: its errors
 * carry the SQLSTATE as `code` (no Prisma transaction or raw query is left to raise P2034 or P2010).
 */
export function transientTransactionCode(err: unknown): string | null {
  if (!(err instanceof pg.DatabaseError)) return null;
  return err.code !== undefined && TRANSIENT_SQLSTATES.has(err.code) ? err.code : null;
}
