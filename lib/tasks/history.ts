import { getDb } from "@/lib/db/client";
import { PUBLIC_ERROR_CHARS, type TaskStatus } from "@/lib/contract/task";
import {
  encodeHistoryCursor,
  HISTORY_DEFAULT_LIMIT,
  type HistoryCursor,
  type HistoryNotificationStatus,
  type PublicHistoryItem,
  type PublicHistoryPage,
} from "@/lib/contract/history";
import { NOTIFIED, taskHistoryRows, type HistoryRow } from "./history-sql";

// A task's timeline (GET /api/tasks/:id/history): what it is assembled from and in which order is in ./history-sql.ts.

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const bounded = (v: unknown, max = PUBLIC_ERROR_CHARS): string | null => {
  const s = str(v);
  return s === null ? null : s.length > max ? `${s.slice(0, max - 1)}…` : s;
};
const MAX_LISTED_INSTRUCTIONS = 20;

type RowData = HistoryRow["d"];

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
function toItem(r: HistoryRow): PublicHistoryItem | null {
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
  const rows = await taskHistoryRows(ownerId, taskId, opts.after ?? null, limit + 1);
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
