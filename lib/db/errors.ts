import pg from "pg";
import { Prisma } from "./generated/client.ts";

/**
 * A unique-constraint violation, whether raised by `pg` (23505: every Kysely statement, `db()` or a `transaction`), by a
 * Prisma model call (P2002) or by a Prisma raw query not yet moved to Kysely (P2010).
 */
export function isUniqueViolation(err: unknown): boolean {
  if (err instanceof pg.DatabaseError) return err.code === "23505";
  if (!(err instanceof Prisma.PrismaClientKnownRequestError)) return false;
  if (err.code === "P2002") return true;
  const meta = err.meta as
    { code?: string; driverAdapterError?: { cause?: { originalCode?: string; kind?: string } } } | undefined;
  return (
    err.code === "P2010" &&
    (meta?.code === "23505" ||
      meta?.driverAdapterError?.cause?.originalCode === "23505" ||
      meta?.driverAdapterError?.cause?.kind === "UniqueConstraintViolation")
  );
}

/** SQLSTATEs after which Postgres has rolled the whole transaction back and running it again may succeed. */
const TRANSIENT_SQLSTATES = new Set(["40P01", "40001"]);

/**
 * The SQLSTATE (40P01 deadlock, 40001 serialization failure) when `err` says Postgres aborted the transaction for
 * a reason a second run may not meet; null otherwise. Read from `pg` (`code`: Kysely's `transaction`) and from Prisma,
 * whose adapter keeps the driver's code in `meta` (raw queries, P2010) or maps both to P2034 (model calls, the code then
 * read from the cause) while a Prisma `$transaction` is left.
 */
export function transientTransactionCode(err: unknown): string | null {
  if (err instanceof pg.DatabaseError)
    return err.code !== undefined && TRANSIENT_SQLSTATES.has(err.code) ? err.code : null;
  if (!(err instanceof Prisma.PrismaClientKnownRequestError)) return null;
  const meta = err.meta as
    { code?: string; driverAdapterError?: { cause?: { originalCode?: string; kind?: string } } } | undefined;
  const cause = meta?.driverAdapterError?.cause;
  const code = cause?.originalCode ?? meta?.code;
  if (code !== undefined && TRANSIENT_SQLSTATES.has(code)) return code;
  if (err.code === "P2034" || cause?.kind === "TransactionWriteConflict") return code ?? "P2034";
  return null;
}
