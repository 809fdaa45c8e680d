// Wire shapes shared by route handlers, the feed and the browser. Everything a
// client can see is listed here; anything not listed never leaves the server.

export type MessageKind = "user" | "assistant" | "progress" | "body" | "terminal" | "notice";

export interface PublicConversation {
  id: string;
  title: string;
  createdAt: string;
  updatedAt: string;
}

export interface PublicMessage {
  id: string;
  conversationId: string;
  seq: number;
  kind: MessageKind;
  content: string;
  taskId: string | null;
  runId: string | null;
  publicationId: string | null;
  meta: Record<string, unknown> | null;
  clientMessageId: string | null;
  createdAt: string;
}

export type RunStatus = "queued" | "running" | "succeeded" | "failed" | "cancelled";

export interface PublicRun {
  id: string;
  conversationId: string;
  kind: "chat" | "notification";
  status: RunStatus;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** Durable feed events carry `id: <seq>`; run.delta is ephemeral. */
export type FeedEvent =
  | { type: "message.created"; data: { message: PublicMessage } }
  | { type: "run.updated"; data: { run: PublicRun } }
  | { type: "conversation.updated"; data: { conversation: PublicConversation; deleted?: boolean } }
  | { type: "task.updated"; data: { task: Record<string, unknown> } }
  | { type: "notice.created"; data: { notice: Record<string, unknown> } };

export interface RunDelta {
  runId: string;
  conversationId: string;
  /** Text appended since the previous delta of this run. */
  delta: string;
  /** Length of the run's streamed text before this delta; lets clients drop duplicates. */
  offset: number;
}

export interface ApiErrorBody {
  /** `ref` only on 500s: the id the server logged the failure under. */
  error: { code: string; message: string; field?: string; ref?: string };
}
