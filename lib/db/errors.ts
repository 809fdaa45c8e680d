import pg from "pg";
import { Prisma } from "./generated/client.ts";

/** A unique-constraint violation, whether raised by a model call (P2002), by raw SQL (23505) or by `pg` (sqlTransaction). */
export function isUniqueViolation(err: unknown): boolean {
  if (err instanceof pg.DatabaseError) return err.code === "23505";
  if (!(err instanceof Prisma.PrismaClientKnownRequestError)) return false;
  if (err.code === "P2002") return true;
  const meta = err.meta as { code?: string; driverAdapterError?: { cause?: { originalCode?: string; kind?: string } } } | undefined;
  return (
    err.code === "P2010" &&
    (meta?.code === "23505" || meta?.driverAdapterError?.cause?.originalCode === "23505" || meta?.driverAdapterError?.cause?.kind === "UniqueConstraintViolation")
  );
}
