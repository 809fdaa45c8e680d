import type { ApRun as ApRunRow, Conversation, Task } from "@/lib/db/generated/client.ts";
import type { ApMessage, ApRun, ApRunStatus, ApThread, ApThreadStatus } from "@/lib/contract/ap";
import { isTerminalStatus } from "@/lib/contract/task";

/**
 * How Herald's task states read as Agent Protocol run states. A run that a
 * later `interrupt` run took over reads `interrupted` (its task goes on under
 * the newer run, as a LangGraph thread would).
 *
 *   task status                       run status
 *   submitted, queued                 pending
 *   running, updating                 running
 *   input_required                    interrupted
 *   succeeded                         success
 *   failed                            error
 *   cancelled                         interrupted   (LangGraph's cancel action "interrupt")
 *   deadline_exceeded                 timeout
 */
export function runStatusOf(status: string, superseded: boolean): ApRunStatus {
  if (superseded) return "interrupted";
  switch (status) {
    case "submitted":
    case "queued":
      return "pending";
    case "running":
    case "updating":
      return "running";
    case "succeeded":
      return "success";
    case "failed":
      return "error";
    case "deadline_exceeded":
      return "timeout";
    default:
      return "interrupted";
  }
}

const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

export function toApRun(row: ApRunRow, task: Pick<Task, "status" | "updatedAt">, superseded: boolean): ApRun {
  return {
    run_id: row.id,
    thread_id: row.conversationId,
    assistant_id: row.assistantId,
    created_at: row.createdAt.toISOString(),
    updated_at: (task.updatedAt > row.createdAt ? task.updatedAt : row.createdAt).toISOString(),
    status: runStatusOf(task.status, superseded),
    metadata: obj(row.metadata),
    multitask_strategy: row.multitaskStrategy,
    kwargs: {},
  };
}

export function threadStatusOf(tasks: Pick<Task, "status">[]): ApThreadStatus {
  if (tasks.some((t) => t.status === "input_required")) return "interrupted";
  if (tasks.some((t) => !isTerminalStatus(t.status))) return "busy";
  return tasks.at(-1)?.status === "failed" ? "error" : "idle";
}

export function toApThread(
  c: Pick<Conversation, "id" | "createdAt" | "updatedAt" | "apMetadata">,
  tasks: Pick<Task, "status">[],
): ApThread {
  return {
    thread_id: c.id,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
    metadata: obj(c.apMetadata),
    status: threadStatusOf(tasks),
    values: {},
    interrupts: {},
  };
}

/** The text of a caller's message: a string, or the text parts of a content list. */
export function textOf(content: string | { type: string; text?: string }[]): string {
  if (typeof content === "string") return content;
  return content
    .filter((p) => p.type === "text" && typeof p.text === "string")
    .map((p) => p.text)
    .join("\n");
}

export function apMessage(type: ApMessage["type"], content: string, id: string): ApMessage {
  return { type, content, id, name: null, additional_kwargs: {}, response_metadata: {} };
}
