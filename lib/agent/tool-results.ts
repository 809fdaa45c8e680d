import type { PublicTask, TaskStatus } from "@/lib/contract/task";
import { neutralizeUntrusted } from "@/lib/text/frame";
import type { TOOLS as TOOL_NAMES } from "./tool-names";

/** The 7 fields a task shows the model (deer-flow's public tool record); titles and errors are untrusted. */
export interface ToolTaskRecord {
  id: string;
  title: string;
  status: TaskStatus;
  createdAt: string;
  updatedAt: string;
  error: string | null;
  cancelRequested: boolean;
}

export function toolRecord(t: PublicTask): ToolTaskRecord {
  return {
    id: t.id,
    title: neutralizeUntrusted(t.title),
    status: t.status,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    error: t.error === null ? null : neutralizeUntrusted(t.error),
    cancelRequested: t.cancelRequested,
  };
}

// ------------------------------------------------------------- tool results ---
// What each tool hands back to the model, and what the offline model reads
// back (offline/replies.ts). Which variant a result is shows in its fields, in
// the order a reader checks them: `error`, then `candidates`, then the tool's
// own flag (`cancelled`, `found`, `updated`).

/** An expected refusal (not found, conflict, no worker, not a user turn), relayed as data; any tool may return it. */
export interface ToolError {
  error: string;
}

/** A task the user may have meant, when more than one matches (ids tell equal titles apart). */
export interface ToolCandidate {
  id: string;
  title: string;
}

/** A task's timed-delivery contract as a tool shows it. */
export interface ToolDelivery {
  mode: "at" | "by";
  dueAt: string | null;
  reportIfUnfinished: boolean;
}

export interface StartTaskStarted {
  taskId: string;
  title: string;
  status: TaskStatus;
  message: string;
  /** Only when the user's message fixed one. */
  delivery?: ToolDelivery;
}
export type StartTaskResult = ToolError | StartTaskStarted;

export type ListTasksResult = ToolError | { tasks: ToolTaskRecord[]; count: number };

export type CancelTaskResult =
  | ToolError
  | { cancelled: false; error: string }
  | { cancelled: false; message: string }
  | { cancelled: false; candidates: ToolCandidate[]; message: string }
  | { cancelled: true; task: ToolTaskRecord; message: string };

export interface CheckTaskFound {
  found: true;
  task: ToolTaskRecord;
  status: TaskStatus;
  progress: { text: string; at: string } | null;
  delivery: (ToolDelivery & { outcome: string | null }) | null;
  /** `content` is an excerpt framed as untrusted data. */
  latestPublication: { version: number; partial: boolean; createdAt: string; truncated: boolean; content: string } | null;
  /** The remote's question, framed as untrusted data. */
  inputRequest: string | null;
  notices: { key: string; outcome: string | null; createdAt: string }[];
}
export type CheckTaskResult =
  | ToolError
  /** Nothing matches (`tasks`: what the conversation has instead), or the task vanished. */
  | { found: false; message: string; tasks?: ToolCandidate[] }
  | { found: false; candidates: ToolCandidate[]; message: string }
  | CheckTaskFound;

export type UpdateTaskResult =
  | ToolError
  | { updated: false; error: string }
  | { updated: false; message: string }
  | { updated: false; candidates: ToolCandidate[]; message: string }
  | { updated: true; task: ToolTaskRecord; instruction: string; message: string };

/** Each tool's result by tool name. */
export interface ToolResults {
  [TOOL_NAMES.start]: StartTaskResult;
  [TOOL_NAMES.list]: ListTasksResult;
  [TOOL_NAMES.cancel]: CancelTaskResult;
  [TOOL_NAMES.check]: CheckTaskResult;
  [TOOL_NAMES.update]: UpdateTaskResult;
}
