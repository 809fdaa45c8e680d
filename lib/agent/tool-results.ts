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

/**
 * A task's timed-delivery contract as a tool shows it: the machine facts
 * (`mode`, `dueAt`, `timeZone`) for reasoning, and `dueText`, the due time as
 * the user reads it (their time zone, no ISO stamp), for repeating.
 */
export interface ToolDelivery {
  mode: "at" | "by";
  dueAt: string | null;
  reportIfUnfinished: boolean;
  /** The account's time zone (IANA), in which `dueText` is written. */
  timeZone: string;
  /** E.g. "Mon 30 Nov, 11:33 CET". */
  dueText: string;
}

/**
 * Every result a person will hear about carries `say`: plain sentences the
 * model may repeat (in the user's language). Field names, enum values
 * (`on_time`, `at`) and ISO times are for reasoning, never for the reply.
 */
export const SAY_HINT =
  "Tell the user what `say` says, in their language and in your own words; never repeat field names, enum values or ISO times.";

/** The contract in plain English: "I'll report at Mon 30 Nov, 11:33 CET, even if it finishes earlier." */
export function deliverySay(d: Pick<ToolDelivery, "mode" | "dueText" | "reportIfUnfinished">): string {
  if (!d.dueText) return "";
  if (d.mode === "at") return `The user will be told at ${d.dueText}, even if it finishes earlier.`;
  return `The user will be told as soon as it is done, by ${d.dueText} at the latest${d.reportIfUnfinished ? ", with whatever exists then if it is not finished" : ""}.`;
}

/** A delivery outcome in plain English; null for none yet. */
export function outcomeSay(outcome: string | null): string | null {
  switch (outcome) {
    case "on_time":
      return "The result was delivered on time.";
    case "early":
      return "It finished before the promised time.";
    case "missed":
      return "It was not finished by the promised time.";
    default:
      return null;
  }
}

export interface StartTaskStarted {
  taskId: string;
  title: string;
  status: TaskStatus;
  message: string;
  /** Only when the user's message fixed one. */
  delivery?: ToolDelivery;
  /** Plain sentences for the reply (SAY_HINT). */
  say: string;
}
export type StartTaskResult = ToolError | StartTaskStarted;

export type ListTasksResult = ToolError | { tasks: ToolTaskRecord[]; count: number };

export type CancelTaskResult =
  | ToolError
  | { cancelled: false; error: string }
  | { cancelled: false; message: string }
  | { cancelled: false; candidates: ToolCandidate[]; message: string }
  | { cancelled: true; task: ToolTaskRecord; message: string; say: string };

export interface CheckTaskFound {
  found: true;
  task: ToolTaskRecord;
  status: TaskStatus;
  progress: { text: string; at: string } | null;
  delivery: (ToolDelivery & { outcome: string | null }) | null;
  /** Plain sentences for the reply (SAY_HINT): status, what exists, the promise and how it went. */
  say: string;
  /** `content` is an excerpt framed as untrusted data. */
  latestPublication: {
    version: number;
    partial: boolean;
    createdAt: string;
    truncated: boolean;
    content: string;
  } | null;
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
