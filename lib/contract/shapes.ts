// Wire shapes shared by route handlers, the feed and the browser. Everything a
// client can see is listed here; anything not listed never leaves the server.
// The browser imports this file for its types only; the zod schemas are what
// the server parses stored JSON (message meta) back through.

import { z } from "zod";
import { ERROR_CATEGORIES, type ErrorCategory } from "@/lib/errors/categories";
import {
  TASK_STATUSES,
  TERMINAL_STATUSES,
  type PublicTask,
  type PublicTaskSource,
  type TaskStatus,
  type TerminalStatus,
} from "@/lib/contract/task";

/** message.kind (docs/contract.md#message-kinds; CHECK message_kind_check). */
export const MESSAGE_KINDS = ["user", "assistant", "progress", "body", "terminal", "notice"] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

export interface PublicConversation {
  id: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  /** Pinned conversations list first (`PATCH /api/conversations/:id {pinned}`). */
  pinned: boolean;
  /** Visible replies, notices and results after the read mark (`POST /api/conversations/:id/read`). */
  unread: number;
  /** The read mark: every message up to this seq has been seen. */
  lastReadSeq: number;
  /** The newest message seq (hidden ones included); 0 = nothing was ever written. */
  lastSeq: number;
}

// ---------------------------------------------------------------- message meta ---

const TASK_STATUS_ENUM = TASK_STATUSES as [TaskStatus, ...TaskStatus[]];
const ERROR_CODES = Object.keys(ERROR_CATEGORIES) as [ErrorCategory, ...ErrorCategory[]];
export const NOTICE_OUTCOMES = [
  "done",
  "on_time",
  "early",
  "missed",
  "late",
  "stopped",
  "failed",
  "cancelled",
  "input",
] as const;
export type NoticeOutcome = (typeof NOTICE_OUTCOMES)[number];

/** The timed-delivery contract fixed when a user message was accepted (docs/api.md#messages). */
export const deliveryMetaSchema = z.object({
  mode: z.enum(["at", "by"]),
  dueAt: z.string(),
  dueInSeconds: z.number(),
  reportIfUnfinished: z.boolean(),
  allowOvertime: z.boolean(),
  budget: z
    .object({
      maxModelRequests: z.number().optional(),
      maxWallSeconds: z.number().optional(),
      maxTokens: z.number().optional(),
    })
    .optional(),
  source: z.enum(["picker", "phrase"]),
});
export type DeliveryMeta = z.infer<typeof deliveryMetaSchema>;

/**
 * `meta` of each message kind, as written by its one writer (docs/api.md#shapes).
 * Unknown keys are dropped on the way out: meta is a whitelist like every shape.
 */
export const messageMetaSchemas = {
  /** lib/chat/post-message.ts; null without a delivery contract. */
  user: z.object({ delivery: deliveryMetaSchema.optional() }),
  assistant: z.null(),
  /** lib/runtime/execute-task.ts: the research step that reported it (null for a remote's progress). */
  progress: z.object({
    step: z.number().nullable(),
    title: z.string(),
    /** "model": a line the model proposed through send_research_update and the host admitted; else the host's own. */
    source: z.enum(["host", "model"]).optional(),
  }),
  /** lib/runtime/execute-task.ts: the publication this body is. */
  body: z.object({ partial: z.boolean(), version: z.number(), title: z.string() }),
  /**
   * lib/runtime/execute-task.ts `terminal()`. A failure carries its stored sentence
   * (`error`, at most 500 characters) and category (`errorCode`, lib/errors/categories.ts)
   * so readers word it in their language instead of reading `content`.
   */
  terminal: z.object({
    status: z.enum(TERMINAL_STATUSES as [TerminalStatus, ...TerminalStatus[]]),
    completedAt: z.string(),
    title: z.string(),
    errorCode: z.enum(ERROR_CODES).nullable().optional(),
    error: z.string().nullable().optional(),
  }),
  /** lib/delivery/sync-notices.ts `writeNotice()`. */
  notice: z.object({
    noticeId: z.string(),
    noticeKey: z.string(),
    outcome: z.enum(NOTICE_OUTCOMES),
    taskStatus: z.enum(TASK_STATUS_ENUM),
    title: z.string(),
    dueAt: z.string().nullable(),
  }),
} as const satisfies Record<MessageKind, z.ZodType>;

export type UserMessageMeta = z.infer<typeof messageMetaSchemas.user>;
export type ProgressMessageMeta = z.infer<typeof messageMetaSchemas.progress>;
export type BodyMessageMeta = z.infer<typeof messageMetaSchemas.body>;
export type TerminalMessageMeta = z.infer<typeof messageMetaSchemas.terminal>;
export type NoticeMessageMeta = z.infer<typeof messageMetaSchemas.notice>;
/** `meta` of a message of kind K (null: none was written, or a stored one no longer fits). */
export type MessageMeta<K extends MessageKind> = z.infer<(typeof messageMetaSchemas)[K]> | null;

// -------------------------------------------------------------------- messages ---

interface PublicMessageBase {
  id: string;
  conversationId: string;
  seq: number;
  content: string;
  taskId: string | null;
  runId: string | null;
  publicationId: string | null;
  clientMessageId: string | null;
  createdAt: string;
}

/** A visible message of kind K; its `meta` is that kind's. */
export type PublicMessageOf<K extends MessageKind> = PublicMessageBase & { kind: K; meta: MessageMeta<K> };

/** A visible message: a union discriminated on `kind`, so `meta` narrows with it. */
export type PublicMessage = { [K in MessageKind]: PublicMessageOf<K> }[MessageKind];

/** A run waiting for or holding a worker: the runs claim's and quotas' "active" (lib/runs/sql.ts). */
export const RUN_ACTIVE_STATUSES = ["queued", "running"] as const;
export const RUN_FINISHED_STATUSES = ["succeeded", "failed", "cancelled"] as const;
/** run.status (CHECK run_status_check). */
export const RUN_STATUSES = [...RUN_ACTIVE_STATUSES, ...RUN_FINISHED_STATUSES] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** run.kind (CHECK run_kind_check). */
export const RUN_KINDS = ["chat", "notification"] as const;

export interface PublicRun {
  id: string;
  conversationId: string;
  kind: (typeof RUN_KINDS)[number];
  status: RunStatus;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

// ------------------------------------------------------------------------ feed ---

export interface RunDelta {
  runId: string;
  conversationId: string;
  /** Text appended since the previous delta of this run. */
  delta: string;
  /** Length of the run's streamed text before this delta; lets clients drop duplicates. */
  offset: number;
}

/** Each feed event's `data:` by its `event:` name (docs/api.md#event-feed). */
export interface FeedPayloads {
  "message.created": { message: PublicMessage };
  "run.updated": { run: PublicRun };
  "conversation.updated": { conversation: PublicConversation; deleted?: true };
  /** The full public shape; the newer `updatedAt` wins. */
  "task.updated": { task: PublicTask };
  "notice.created": { notice: PublicNotice };
  /** The cursor is older than the log (or ahead of it): refetch snapshots, then continue. */
  reset: Record<string, never>;
  /** Streamed reply text: no id, may be dropped; the stored `assistant` message is the truth. */
  "run.delta": RunDelta;
}

export type FeedEventType = keyof FeedPayloads;
export type FeedPayload<T extends FeedEventType> = FeedPayloads[T];

/** Every event the feed sends, as a union discriminated on `type` (the SSE `event:` name). */
export type FeedEvent = { [T in FeedEventType]: { type: T; data: FeedPayloads[T] } }[FeedEventType];

/** Events that carry `id: <seq>`: all but `run.delta`. */
export type DurableFeedType = Exclude<FeedEventType, "run.delta">;

/**
 * What a transaction appends to the account's log (lib/events/emit.ts): `reset`
 * is made up by the feed for a stale cursor and `run.delta` never touches the log.
 */
export type LoggedFeedEvent = Exclude<FeedEvent, { type: "reset" | "run.delta" }>;

export interface ApiErrorBody {
  /** `ref` only on 500s: the id the server logged the failure under. */
  error: { code: string; message: string; field?: string; ref?: string };
}

/** A host notice as clients see it (lib/contract/notice.ts `toPublicNotice`). */
export interface PublicNotice {
  id: string;
  taskId: string;
  conversationId: string;
  key: string;
  outcome: string | null;
  publicationId: string | null;
  text: string;
  createdAt: string;
}

/** The task sheet's full view: the task, its progress lines, every published body and its notices (docs/api.md#tasks). */
export interface PublicPublication {
  id: string;
  version: number;
  partial: boolean;
  content: string;
  sha256: string;
  createdAt: string;
}

export interface PublicTaskDetail extends PublicTask {
  progressHistory: { text: string; at: string }[];
  publications: PublicPublication[];
  notices: PublicNotice[];
  /** The owner's own instructions (POST /api/tasks/:id/update): waiting for the next step, and the step that applied each. */
  instructions: { accepted: boolean; pending: string[]; applied: { step: number; text: string; at: string }[] };
  /** Pages the task read, in citation order ([n] in its reports). */
  sources: PublicTaskSource[];
}
