import { env } from "@/lib/config/env";

/**
 * Which connection does what (docs/operations.md#connection-poolers). DATABASE_URL carries the pool's
 * statements and may point at a transaction-mode pooler (PgBouncer, Supavisor, RDS Proxy); DATABASE_DIRECT_URL,
 * when set, reaches PostgreSQL itself and carries what needs one server connection for a whole session: LISTEN
 * and the migrations' advisory lock.
 */

/**
 * DATABASE_URL goes through a transaction-mode pooler: DATABASE_DIRECT_URL is set to another URL (a direct URL
 * beside it only makes sense when the main one is not direct), or the URL says `pgbouncer=true`, Prisma's spelling.
 * A pooler hands each transaction any server connection, so no named prepared statement and no session state.
 */
export function behindPooler(url: string | undefined = env("DATABASE_URL")): boolean {
  const direct = env("DATABASE_DIRECT_URL");
  // The same URL twice (a template that always sets both) is a direct connection: keep its prepared statements.
  if (direct) return direct !== url;
  if (!url) return false;
  try {
    return new URL(url).searchParams.get("pgbouncer") === "true";
  } catch {
    return false;
  }
}

/**
 * A URL that reaches PostgreSQL itself, for LISTEN and migrations: DATABASE_DIRECT_URL, else DATABASE_URL when it
 * is not a pooler's; undefined behind a pooler with no direct URL (LISTEN then falls back to polling).
 */
export function directDatabaseUrl(): string | undefined {
  const direct = env("DATABASE_DIRECT_URL");
  if (direct) return direct;
  const url = env("DATABASE_URL");
  return url && !behindPooler(url) ? url : undefined;
}
