import { limits } from "@/lib/limits/config";
import { prepared } from "@/lib/db/kysely";
import { sql, type RawBuilder } from "kysely";

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
 * Priorities are worked out over a window: the first `windowSize(limit)` due rows
 * in the loop's order, leaving out accounts already at their slot limit. Ranking
 * every due row on every claim cost O(backlog) — 4 ms a claim with 1,000 due rows,
 * the whole budget of a job queue — while the window's scan stops early on the
 * loop's index. Leaving the full accounts out of the window keeps it starvation-free:
 * whenever some account below its limit has a due row, the window holds one, so a
 * claim never comes back empty because one account's backlog filled the window.
 * What the window gives up: an idle account's row beyond the window is not preferred
 * over a busier account's row inside it, until that account reaches its limit — at
 * most `slotsPerLoop` claims later.
 *
 * The result is a subquery of the ids to lease: the candidates are locked with
 * `FOR UPDATE SKIP LOCKED` and the due predicate is checked again on the locked row,
 * because window functions cannot be combined with row locks and a candidate may
 * have been claimed by another worker since this snapshot. A few more candidates
 * than `limit` are ranked, so a claim that races another worker for the first ones
 * takes the next instead of coming back short.
 */
export interface FairPick {
  /** The leased table: "task", "run", "notice" (the email outbox) or "ap_webhook". */
  table: "task" | "run" | "notice" | "ap_webhook";
  /** Due predicate on the given alias. */
  due(alias: string): RawBuilder<unknown>;
  /** The loop's own order on alias `c` (oldest first); an index in this order under `due` keeps the window cheap. */
  order: RawBuilder<unknown>;
  /** On alias `h`: rows of this loop leased right now. */
  held: RawBuilder<unknown>;
  limit: number;
}

/** Rows ranked per claim: enough that a handful of busy accounts cannot crowd one claim out. */
const windowSize = (limit: number) => Math.max(32, limit * 16);
/** Candidates ranked per row wanted. */
const CANDIDATES_PER_ROW = 4;

/**
 * A whole number written into the statement's text rather than bound. With the counts bound, PostgreSQL planned this
 * prepared statement afresh on every claim (a custom plan, 1.2 ms of a 2.2 ms claim on a 4,000-row backlog): the
 * generic plan could not see the LIMITs. They take a handful of values, so each gets its own prepared statement.
 */
function literal(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`fairPick: ${n} is not a whole number`);
  return String(n);
}

/**
 * A due predicate's narrowing to given rows (tests drive one row by hand), on the alias `a`. Left out of the text when
 * there is none: a bound `NULL` there would also keep the claim off its generic plan.
 */
export function onlyRows(a: string, ids: string[] | null): RawBuilder<unknown> {
  return ids ? sql`AND ${sql.raw(a)}.id = ANY(${ids}::text[])` : sql``;
}

/** The ids to lease, a subquery for `WHERE t.id IN (…)`. */
export function fairPick({ table, due, order, held, limit }: FairPick): RawBuilder<{ id: string }> {
  const raw = sql.raw;
  const t = raw(`"${table}"`);
  const slots = raw(literal(limits().slotsPerLoop));
  return sql<{ id: string }>`${prepared}
    WITH held AS (
      SELECT h."ownerId", count(*)::int AS n FROM ${t} h WHERE ${held} GROUP BY h."ownerId"
    ), win AS (
      SELECT c.id, c."ownerId", row_number() OVER (ORDER BY ${order}) AS pos FROM ${t} c
      WHERE ${due("c")} AND c."ownerId" NOT IN (SELECT "ownerId" FROM held WHERE n >= ${slots})
      ORDER BY ${order} LIMIT ${raw(literal(windowSize(limit)))}
    ), ranked AS (
      SELECT w.id, w.pos, coalesce(held.n, 0) + row_number() OVER (PARTITION BY w."ownerId" ORDER BY w.pos) AS prio
      FROM win w LEFT JOIN held ON held."ownerId" = w."ownerId"
    ), picked AS (
      SELECT r.id, row_number() OVER (ORDER BY r.prio, r.pos) AS ord FROM ranked r
      WHERE r.prio <= ${slots}
      ORDER BY r.prio, r.pos LIMIT ${raw(literal(limit * CANDIDATES_PER_ROW))}
    )
    SELECT d.id FROM picked p JOIN ${t} d ON d.id = p.id
    WHERE ${due("d")}
    ORDER BY p.ord LIMIT ${raw(literal(limit))}
    FOR UPDATE OF d SKIP LOCKED`;
}
