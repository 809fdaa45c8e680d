import { db } from "@/lib/db/kysely";
import { sql, type RawBuilder } from "kysely";
import { TERMINAL_STATUSES } from "@/lib/contract/task";
import type { HistoryCursor, HistoryNotificationStatus } from "@/lib/contract/history";

/**
 * A task's timeline (GET /api/tasks/:id/history), assembled from what is
 * already stored — no table of its own:
 *   - the task row: created, cancel requested;
 *   - task_step, publication, notice, and the task's visible progress/terminal messages;
 *   - the account's event log: consecutive `task.updated` snapshots of this
 *     task, compared pairwise — a status that differs from the previous
 *     snapshot's is a status change, a higher cancel.attempts is a cancel
 *     attempt, a move of the notification outbox (or its attempt count) is a
 *     notification attempt or a dead letter. The log is reaped after
 *     HERALD_EVENT_RETENTION_DAYS, so these entries of older tasks thin out;
 *     the rows above stay.
 *
 * Order: an entry with a feed event in the log (every message, notice and
 * snapshot is announced in its own transaction) takes that event's time and
 * seq, i.e. commit order, even within one transaction; the stored times alone
 * would not do, since they mix the database's transaction start with the
 * writer's clock. Entries without one (steps, and rows whose event was reaped)
 * sort by their own time, then a fixed rank per kind. The cursor is the full
 * sort key of the last entry returned, so pages never skip or repeat an entry
 * however many share a millisecond.
 *
 * Each source names its columns explicitly (snapshots are read field by field
 * out of the stored public shape): leases, tokens, fingerprints, remote refs,
 * driver data and step outputs never reach the SELECT list.
 */

/** Ties at the same microsecond: rows without a feed event (reaped, or steps, which have none) by kind. */
const RANK = {
  created: 0,
  cancel_requested: 1,
  step: 2,
  progress: 3,
  publication: 4,
  source: 5,
  terminal: 6,
  notice: 8,
  /** Everything placed by its feed event: ordered among itself by the event's seq. */
  log: 20,
} as const;

/** Literals: the planner must see the UNION's column types, and these are constants. */
const rank = Object.fromEntries(Object.entries(RANK).map(([k, v]) => [k, sql.raw(`${v}::int`)])) as Record<
  keyof typeof RANK,
  RawBuilder<number>
>;

export const NOTIFIED: HistoryNotificationStatus[] = ["dispatched", "retry", "delivered"];

/** One timeline entry as the statement returns it; lib/tasks/history.ts words it. */
export interface HistoryRow {
  us: bigint;
  rank: number;
  n: bigint;
  k: string;
  at: Date;
  type: string;
  d: Record<string, unknown>;
}

export function taskHistorySql(
  ownerId: string,
  taskId: string,
  after: HistoryCursor | null,
  take: number,
): RawBuilder<HistoryRow> {
  const terminal = sql.join(TERMINAL_STATUSES);
  const notified = sql.join(NOTIFIED);
  const afterClause = after
    ? sql`WHERE (us, rank, n, k) > (${after.atUs}::bigint, ${after.rank}::int, ${after.n}::bigint, ${after.key}::text)`
    : sql``;
  // A row with its feed event takes the event's time and seq (rank LOG): that is commit order, even inside one
  // transaction, where stored times mix the database's transaction start and the writer's clock.
  return sql<HistoryRow>`
    WITH log AS (
      SELECT e.seq, e."createdAt" AS at, e.type, e.payload
      FROM "event" e
      WHERE e."ownerId" = ${ownerId} AND e."taskId" = ${taskId}
    ),
    ev AS (
      SELECT seq, at, payload->'task' AS t, lag(payload->'task') OVER (ORDER BY seq) AS p FROM log WHERE type = 'task.updated'
    ),
    msg_ev AS (
      SELECT payload->'message'->>'id' AS id, min(seq) AS seq, min(at) AS at FROM log WHERE type = 'message.created' GROUP BY 1
    ),
    notice_ev AS (
      SELECT payload->'notice'->>'id' AS id, min(seq) AS seq, min(at) AS at FROM log WHERE type = 'notice.created' GROUP BY 1
    ),
    items AS (
      SELECT "createdAt" AS at, ${rank.created} AS rank, 0::bigint AS n, ''::text AS k, 'created' AS type,
             jsonb_build_object('title', title, 'driver', split_part(driver, ':', 1), 'mode', "deliveryMode", 'dueAt', "dueAt") AS d
      FROM "task" WHERE id = ${taskId} AND "ownerId" = ${ownerId}
      UNION ALL
      SELECT "cancelRequestedAt", ${rank.cancel_requested}, 0, '', 'cancel_requested', '{}'::jsonb
      FROM "task" WHERE id = ${taskId} AND "ownerId" = ${ownerId} AND "cancelRequestedAt" IS NOT NULL
      UNION ALL
      SELECT s."createdAt", ${rank.step}, s.index, '', 'step',
             jsonb_build_object('index', s.index, 'kind', s.kind, 'modelRequests', s."modelRequests",
                                'inputTokens', s."inputTokens", 'outputTokens', s."outputTokens",
                                'title', CASE WHEN jsonb_typeof(s.input->'title') = 'string' THEN s.input->>'title' END,
                                'instructions', CASE WHEN jsonb_typeof(s.input->'updates') = 'array' THEN s.input->'updates' END)
      FROM "task_step" s WHERE s."taskId" = ${taskId}
      UNION ALL
      SELECT COALESCE(x.at, m."createdAt"),
             CASE WHEN x.seq IS NOT NULL THEN ${rank.log} WHEN m.kind = 'progress' THEN ${rank.progress} ELSE ${rank.terminal} END,
             COALESCE(x.seq, m.seq), '', m.kind,
             jsonb_build_object('seq', m.seq, 'text', m.content, 'step', m.meta->'step', 'status', m.meta->>'status')
      FROM "message" m LEFT JOIN msg_ev x ON x.id = m.id
      WHERE m."taskId" = ${taskId} AND m."ownerId" = ${ownerId} AND m.kind IN ('progress', 'terminal')
        -- A cancel's terminal line is hidden from the chat when the chat reply said it; the timeline keeps it.
        AND (NOT m.hidden OR m.kind = 'terminal')
      UNION ALL
      -- A publication's body message is announced in the publication's own transaction.
      SELECT COALESCE(x.at, p."createdAt"), CASE WHEN x.seq IS NOT NULL THEN ${rank.log} ELSE ${rank.publication} END,
             COALESCE(x.seq, p.version), '', 'publication',
             jsonb_build_object('version', p.version, 'publicationId', p.id, 'partial', p.partial)
      FROM "publication" p
      LEFT JOIN LATERAL (
        SELECT x.seq, x.at FROM "message" b JOIN msg_ev x ON x.id = b.id
        WHERE b."taskId" = p."taskId" AND b."publicationId" = p.id AND b.kind = 'body' ORDER BY x.seq LIMIT 1
      ) x ON true
      WHERE p."taskId" = ${taskId} AND p."ownerId" = ${ownerId}
      UNION ALL
      SELECT s."fetchedAt", ${rank.source}, s.n, '', 'source', jsonb_build_object('n', s.n, 'url', s.url, 'title', s.title, 'site', s.site)
      FROM "task_source" s WHERE s."taskId" = ${taskId} AND s."ownerId" = ${ownerId}
      UNION ALL
      SELECT COALESCE(x.at, n."createdAt"), CASE WHEN x.seq IS NOT NULL THEN ${rank.log} ELSE ${rank.notice} END,
             COALESCE(x.seq, 0), CASE WHEN x.seq IS NOT NULL THEN '' ELSE n.id END, 'notice',
             jsonb_build_object('id', n.id, 'key', n.key, 'outcome', n.outcome, 'publicationId', n."publicationId", 'text', n.text)
      FROM "notice" n LEFT JOIN notice_ev x ON x.id = n.id
      WHERE n."taskId" = ${taskId} AND n."ownerId" = ${ownerId}
      UNION ALL
      -- The first retained snapshot has nothing before it: it is a change only if the task did not start there.
      -- k tells apart the entries one snapshot can make (they share its seq).
      SELECT at, ${rank.log}, seq, '1', 'status', jsonb_build_object('from', p->>'status', 'to', t->>'status')
      FROM ev WHERE CASE WHEN p IS NULL THEN t->>'status' <> 'submitted' ELSE p->>'status' IS DISTINCT FROM t->>'status' END
      UNION ALL
      SELECT at, ${rank.log}, seq, '2', 'cancel_attempt',
             jsonb_build_object('attempt', (t->'cancel'->>'attempts')::int, 'ended', t->>'status' IN (${terminal}),
                                'error', t->'cancel'->>'lastError')
      FROM ev
      WHERE jsonb_typeof(t->'cancel'->'attempts') = 'number'
        AND (t->'cancel'->>'attempts')::int > COALESCE((p->'cancel'->>'attempts')::int, 0)
      UNION ALL
      SELECT at, ${rank.log}, seq, '3',
             CASE WHEN t->'notification'->>'status' = 'dead_letter' THEN 'dead_letter' ELSE 'notification' END,
             jsonb_build_object('status', t->'notification'->>'status', 'attempts', (t->'notification'->>'attempts')::int,
                                'error', t->'notification'->>'error')
      FROM ev
      WHERE jsonb_typeof(t->'notification'->'attempts') = 'number'
        AND (
          (t->'notification'->>'status' IS DISTINCT FROM p->'notification'->>'status'
            AND t->'notification'->>'status' IN (${notified}, 'dead_letter'))
          OR (t->'notification'->>'attempts')::int > COALESCE((p->'notification'->>'attempts')::int, 0)
        )
    ),
    keyed AS (
      SELECT (extract(epoch FROM at) * 1000000)::bigint AS us, rank, n, k, at, type, d FROM items WHERE at IS NOT NULL
    )
    SELECT us, rank, n, k, at, type, d FROM keyed
    ${afterClause}
    ORDER BY us, rank, n, k
    LIMIT ${take}`;
}

/** One page of the timeline's rows (`take` of them), in its order. */
export async function taskHistoryRows(
  ownerId: string,
  taskId: string,
  after: HistoryCursor | null,
  take: number,
): Promise<HistoryRow[]> {
  const { rows } = await taskHistorySql(ownerId, taskId, after, take).execute(db());
  return rows;
}
