import { z } from "zod";
import type { TaskStatus } from "@/lib/contract/task";

// GET /api/tasks/:id/history (docs/api.md#task-history): the wire shape of one
// timeline entry and the page's query. A closed set of types, each a whitelist
// of fields; nothing here names a lease, token, fingerprint, remote ref or
// driver data.

export const HISTORY_ITEM_TYPES = [
  "created",
  "cancel_requested",
  "step",
  "progress",
  "publication",
  "source",
  "status",
  "terminal",
  "cancel_attempt",
  "notice",
  "notification",
  "dead_letter",
] as const;
export type HistoryItemType = (typeof HISTORY_ITEM_TYPES)[number];

/** Outbox states a history entry reports (the bookkeeping ones — pending, claimed — are not events a user can act on). */
export type HistoryNotificationStatus = "dispatched" | "retry" | "delivered";

interface Base<T extends HistoryItemType> {
  /** Stable within the task's history: a key for lists, not a cursor. */
  id: string;
  at: string;
  type: T;
}

export type PublicHistoryItem =
  | (Base<"created"> & {
      title: string;
      driver: string;
      delivery: { mode: "none" | "at" | "by"; dueAt: string | null };
    })
  | Base<"cancel_requested">
  | (Base<"step"> & {
      index: number;
      kind: string;
      title: string | null;
      modelRequests: number;
      /** The step's tokens as the provider reported them (0 where it reports none). */
      inputTokens: number;
      outputTokens: number;
      instructions: string[];
    })
  | (Base<"progress"> & { text: string; step: number | null })
  | (Base<"publication"> & { publicationId: string; version: number; partial: boolean })
  /** A web page the task read (task_source): its citation number, where it is and what it is called. */
  | (Base<"source"> & { n: number; url: string; title: string; site: string })
  /** `from` is null when the entry before it is older than the feed log keeps (HERALD_EVENT_RETENTION_DAYS). */
  | (Base<"status"> & { from: TaskStatus | null; to: TaskStatus })
  | (Base<"terminal"> & { status: TaskStatus; text: string })
  /** A cancel claim that ended: `ended` when it left the task terminal, else `error` says why it will retry. */
  | (Base<"cancel_attempt"> & { attempt: number; ended: boolean; error: string | null })
  | (Base<"notice"> & {
      noticeId: string;
      key: string;
      outcome: string | null;
      publicationId: string | null;
      text: string;
    })
  | (Base<"notification"> & { status: HistoryNotificationStatus; attempts: number; error: string | null })
  | (Base<"dead_letter"> & { attempts: number; error: string | null });

export interface PublicHistoryPage {
  items: PublicHistoryItem[];
  /** Pass as `after` for the next page; null when this page reached the end. */
  nextCursor: string | null;
}

export const HISTORY_DEFAULT_LIMIT = 100;
export const HISTORY_MAX_LIMIT = 500;

/** A position in the timeline: the sort key of the last entry a page returned. */
export interface HistoryCursor {
  /** Microseconds since the epoch. */
  atUs: bigint;
  rank: number;
  n: bigint;
  key: string;
}

const CURSOR_TEXT = /^(\d{1,17})\.(\d{1,2})\.(\d{1,19})\.([0-9a-f-]{0,36})$/;

function toBase64Url(text: string): string {
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function encodeHistoryCursor(c: HistoryCursor): string {
  return toBase64Url(`${c.atUs}.${c.rank}.${c.n}.${c.key}`);
}

export function decodeHistoryCursor(value: string): HistoryCursor | null {
  if (!/^[A-Za-z0-9_-]{1,120}$/.test(value)) return null;
  let text: string;
  try {
    text = atob(value.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    return null;
  }
  const m = CURSOR_TEXT.exec(text);
  if (!m) return null;
  const n = BigInt(m[3]);
  if (n > 9_223_372_036_854_775_807n) return null;
  return { atUs: BigInt(m[1]), rank: Number(m[2]), n, key: m[4] };
}

/** Plain decimal digits, like every other query integer (schemas.ts). */
const limit = z.preprocess(
  (v) => (v === "" ? undefined : v),
  z
    .string()
    .regex(/^[0-9]{1,10}$/, `must be an integer from 1 to ${HISTORY_MAX_LIMIT}`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= HISTORY_MAX_LIMIT, `must be an integer from 1 to ${HISTORY_MAX_LIMIT}`)
    .optional(),
);

export const historyQuery = z.object({
  after: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z
      .string()
      .transform((v, ctx) => {
        const c = decodeHistoryCursor(v);
        if (!c) ctx.addIssue({ code: "custom", message: "not a cursor this endpoint returned" });
        return c ?? z.NEVER;
      })
      .optional(),
  ),
  limit,
});
