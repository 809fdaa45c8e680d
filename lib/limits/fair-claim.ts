import { Prisma } from "@/lib/db/generated/client.ts";
import { limits } from "@/lib/limits/config";

/**
 * The fair-share pick every lease loop claims through, so one account with a
 * deep backlog never holds the slots while another account waits.
 *
 * Each due row gets a priority = leases its account holds right now (in this
 * loop, across all workers) + its rank within the account's own due rows.
 * Rows are taken lowest priority first, the loop's own order breaking ties,
 * and never beyond the per-account slot limit. An account that holds nothing
 * therefore goes ahead of one that holds three; a lone account still gets every
 * free slot up to its limit (work-conserving).
 *
 * The result is a candidate id list; the caller locks those rows with
 * `FOR UPDATE SKIP LOCKED` and re-checks its due predicate, because window
 * functions cannot be combined with row locks and a candidate may have been
 * claimed by another worker since this snapshot.
 */
export interface FairPick {
  /** The leased table: "task", "run" or "notice" (the email outbox). */
  table: "task" | "run" | "notice";
  /** Due predicate on alias `c`. */
  due: Prisma.Sql;
  /** The loop's own order on alias `c` (oldest first). */
  order: Prisma.Sql;
  /** On alias `h`: rows of this loop leased right now. */
  held: Prisma.Sql;
  limit: number;
}

export function fairPick({ table, due, order, held, limit }: FairPick): Prisma.Sql {
  const t = Prisma.raw(`"${table}"`);
  const slots = limits().slotsPerLoop;
  return Prisma.sql`
    WITH held AS (
      SELECT h."ownerId", count(*)::int AS n FROM ${t} h WHERE ${held} GROUP BY h."ownerId"
    ), ranked AS (
      SELECT c.id, c."ownerId",
             row_number() OVER (PARTITION BY c."ownerId" ORDER BY ${order}) AS rank,
             row_number() OVER (ORDER BY ${order}) AS pos
      FROM ${t} c WHERE ${due}
    )
    SELECT r.id FROM ranked r LEFT JOIN held ON held."ownerId" = r."ownerId"
    WHERE coalesce(held.n, 0) + r.rank <= ${slots}::bigint
    ORDER BY coalesce(held.n, 0) + r.rank, r.pos
    LIMIT ${limit}`;
}
