import { getDb } from "@/lib/db/client";
import { db } from "@/lib/db/kysely";
import { sql, type RawBuilder } from "kysely";
import { PUBLIC_ERROR_CHARS, TERMINAL_STATUSES, type TaskStatus } from "@/lib/contract/task";
import {
  encodeHistoryCursor,
  HISTORY_DEFAULT_LIMIT,
  type HistoryCursor,
  type HistoryNotificationStatus,
  type PublicHistoryItem,
  type PublicHistoryPage,
} from "@/lib/contract/history";

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

const NOTIFIED: HistoryNotificationStatus[] = ["dispatched", "retry", "delivered"];

interface Row {
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
): RawBuilder<Row> {
  const terminal = sql.join(TERMINAL_STATUSES);
  const notified = sql.join(NOTIFIED);
  const afterClause = after
    ? sql`WHERE (us, rank, n, k) > (${after.atUs}::bigint, ${after.rank}::int, ${after.n}::bigint, ${after.key}::text)`
    : sql``;
  // A row with its feed event takes the event's time and seq (rank LOG): that is commit order, even inside one
  // transaction, where stored times mix the database's transaction start and the writer's clock.
  return sql<Row>`
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

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const bounded = (v: unknown, max = PUBLIC_ERROR_CHARS): string | null => {
  const s = str(v);
  return s === null ? null : s.length > max ? `${s.slice(0, max - 1)}…` : s;
};
const MAX_LISTED_INSTRUCTIONS = 20;

type RowData = Row["d"];

function stepItem(d: RowData, at: string): PublicHistoryItem {
  const index = num(d.index);
  const list = Array.isArray(d.instructions) ? d.instructions : [];
  const instructions = list
    .filter((x): x is string => typeof x === "string")
    .slice(0, MAX_LISTED_INSTRUCTIONS)
    .map((x) => bounded(x, 4000) as string);
  return {
    id: `step:${index}`,
    at,
    type: "step",
    index,
    kind: str(d.kind) ?? "",
    title: bounded(d.title, 200),
    modelRequests: num(d.modelRequests),
    inputTokens: num(d.inputTokens),
    outputTokens: num(d.outputTokens),
    instructions,
  };
}

function notificationItem(d: RowData, at: string, n: number): PublicHistoryItem {
  const status = str(d.status);
  if (!NOTIFIED.includes(status as HistoryNotificationStatus)) {
    // An attempt counted without a state change (an unexpected error): the outbox will retry it.
    return {
      id: `n:${n}`,
      at,
      type: "notification",
      status: "retry",
      attempts: num(d.attempts),
      error: bounded(d.error),
    };
  }
  return {
    id: `n:${n}`,
    at,
    type: "notification",
    status: status as HistoryNotificationStatus,
    attempts: num(d.attempts),
    error: status === "delivered" ? null : bounded(d.error),
  };
}

/** One row to its public entry, field by field; null for a row this version cannot word. */
function toItem(r: Row): PublicHistoryItem | null {
  const at = r.at.toISOString();
  const d = r.d;
  const n = Number(r.n);
  switch (r.type) {
    case "created": {
      const mode = d.mode === "at" || d.mode === "by" ? d.mode : "none";
      const dueAt = str(d.dueAt);
      return {
        id: "created",
        at,
        type: "created",
        title: str(d.title) ?? "",
        driver: str(d.driver) ?? "",
        delivery: { mode, dueAt: dueAt ? new Date(dueAt).toISOString() : null },
      };
    }
    case "cancel_requested":
      return { id: "cancel_requested", at, type: "cancel_requested" };
    case "step":
      return stepItem(d, at);
    case "progress":
      return {
        id: `m:${num(d.seq)}`,
        at,
        type: "progress",
        text: str(d.text) ?? "",
        step: typeof d.step === "number" ? d.step : null,
      };
    case "terminal":
      return {
        id: `m:${num(d.seq)}`,
        at,
        type: "terminal",
        status: (str(d.status) ?? "failed") as TaskStatus,
        text: str(d.text) ?? "",
      };
    case "publication":
      return {
        id: `p:${num(d.version)}`,
        at,
        type: "publication",
        publicationId: str(d.publicationId) ?? "",
        version: num(d.version),
        partial: d.partial === true,
      };
    case "source":
      return {
        id: `src:${n}`,
        at,
        type: "source",
        n,
        url: str(d.url) ?? "",
        title: bounded(d.title, 300) ?? "",
        site: str(d.site) ?? "",
      };
    case "notice": {
      const noticeId = str(d.id) ?? "";
      return {
        id: `notice:${noticeId}`,
        at,
        type: "notice",
        noticeId,
        key: str(d.key) ?? "",
        outcome: str(d.outcome),
        publicationId: str(d.publicationId),
        text: str(d.text) ?? "",
      };
    }
    case "status": {
      const to = str(d.to);
      if (!to) return null;
      return { id: `s:${n}`, at, type: "status", from: str(d.from) as TaskStatus | null, to: to as TaskStatus };
    }
    case "cancel_attempt":
      return {
        id: `c:${n}`,
        at,
        type: "cancel_attempt",
        attempt: num(d.attempt),
        ended: d.ended === true,
        error: d.ended === true ? null : bounded(d.error),
      };
    case "notification":
      return notificationItem(d, at, n);
    case "dead_letter":
      return { id: `n:${n}`, at, type: "dead_letter", attempts: num(d.attempts), error: bounded(d.error) };
    default:
      return null;
  }
}

/** One page of the owner's task's timeline; null when the task is not theirs (or does not exist). */
export async function getTaskHistory(
  ownerId: string,
  taskId: string,
  opts: { after?: HistoryCursor | null; limit?: number } = {},
): Promise<PublicHistoryPage | null> {
  if (!(await getDb().task.findFirst({ where: { id: taskId, ownerId }, select: { id: true } }))) return null;
  const limit = opts.limit ?? HISTORY_DEFAULT_LIMIT;
  const { rows } = await taskHistorySql(ownerId, taskId, opts.after ?? null, limit + 1).execute(db());
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(toItem).filter((i): i is PublicHistoryItem => i !== null),
    nextCursor:
      rows.length > limit && last
        ? encodeHistoryCursor({ atUs: BigInt(last.us), rank: Number(last.rank), n: BigInt(last.n), key: last.k })
        : null,
  };
}
