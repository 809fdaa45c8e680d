import { tool, type ToolSet } from "ai";
import { z } from "zod";
import { getDb } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { startTask } from "@/lib/tasks/start-task";
import type { PublicTaskDetail } from "@/lib/contract/shapes";
import { listTasks, getTaskDetail } from "@/lib/tasks/queries";
import { requestCancel } from "@/lib/tasks/request-cancel";
import { updateTask } from "@/lib/tasks/update-task";
import { ACTIVE_STATUSES } from "@/lib/contract/task";
import { createFrame, neutralizeUntrusted, type Frame } from "@/lib/text/frame";
import { TOOLS as TOOL_NAMES } from "./tool-names";
import { deliveryFromMessage, workChoiceOf } from "./trigger-meta";
import {
  deliverySay,
  outcomeSay,
  SAY_HINT,
  toolRecord,
  type ToolDelivery,
  type CancelTaskResult,
  type CheckTaskFound,
  type CheckTaskResult,
  type ListTasksResult,
  type StartTaskResult,
  type ToolCandidate,
  type ToolError,
  type UpdateTaskResult,
} from "./tool-results";
import { matchTasks } from "./match-tasks";
import { formatDue, statusText } from "./offline/format";
import { driverChoices } from "@/lib/drivers/choices";
import type { AgentChoice } from "@/lib/drivers/remote-agent-config";

export interface ToolContext {
  ownerId: string;
  conversationId: string;
  runId: string;
  /** The prompt's frame, so excerpts in tool results carry the nonce its system prompt names. */
  frame?: Frame;
}

/**
 * What a run may do with tools. Only a turn the user wrote may change state
 * (start, cancel, update); a narration run (the host telling the user about a
 * task event, its prompt built from task data) may only look tasks up. The AI
 * SDK executes only tools it was given: a call to any other is a tool error.
 */
export type ToolAccess = "user-turn" | "read-only";

export const READ_ONLY_TOOLS: readonly string[] = [TOOL_NAMES.list, TOOL_NAMES.check];
export const STATE_CHANGING_TOOLS: readonly string[] = [TOOL_NAMES.start, TOOL_NAMES.cancel, TOOL_NAMES.update];

/** A chat run triggered by a visible message the user wrote; anything else is read-only. */
export function toolAccessFor(
  run: { kind: string },
  trigger: { kind: string; hidden: boolean } | null | undefined,
): ToolAccess {
  return run.kind === "chat" && trigger?.kind === "user" && !trigger.hidden ? "user-turn" : "read-only";
}

const NOT_A_USER_TURN =
  "Only a request the user wrote can start, cancel or change background tasks; this turn can only look them up.";

const LIST_LIMIT = 20;
const MATCH_LIMIT = 50;
const CHECK_LIMIT = 100;
const CANDIDATE_LIMIT = 10;
const EXCERPT_CHARS = 1000;
const PROGRESS_CHARS = 500;

const candidate = (t: { id: string; title: string }): ToolCandidate => ({
  id: t.id,
  title: neutralizeUntrusted(t.title),
});

// ------------------------------------------------------------------ helpers ---

/** The account's time zone (settings), in which due times are told. */
async function readerZone(ownerId: string): Promise<string> {
  const row = await getDb().user.findUnique({ where: { id: ownerId }, select: { timeZone: true } });
  return row?.timeZone ?? "UTC";
}

/** A contract as the tools show it: machine facts plus the due time as the user reads it. */
function toolDelivery(
  d: { mode: "none" | "at" | "by"; dueAt: string | null; reportIfUnfinished: boolean },
  timeZone: string,
): ToolDelivery | null {
  if (d.mode === "none") return null;
  return {
    mode: d.mode,
    dueAt: d.dueAt,
    reportIfUnfinished: d.reportIfUnfinished,
    timeZone,
    dueText: formatDue(d.dueAt, "en", timeZone),
  };
}

const quoted = (title: string) => `"${neutralizeUntrusted(title)}"`;

/** Expected refusals (not found, conflict, no worker) go back to the model as data; anything else fails the run. */
async function guarded<T>(fn: () => Promise<T>): Promise<T | ToolError> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError) return { error: neutralizeUntrusted(err.message) };
    throw err;
  }
}

/**
 * The run's trigger message when the run is a turn the user wrote, else null.
 * Checked again when a state-changing tool executes, so even a tool set built
 * wrongly cannot let a narration run change a task.
 */
async function userTrigger(ctx: ToolContext) {
  const db = getDb();
  const run = await db.run.findFirst({
    where: { id: ctx.runId, ownerId: ctx.ownerId, conversationId: ctx.conversationId },
    select: { kind: true, triggerMessageId: true },
  });
  if (!run?.triggerMessageId) return null;
  const trigger = await db.message.findFirst({
    where: { id: run.triggerMessageId, ownerId: ctx.ownerId, conversationId: ctx.conversationId },
  });
  return trigger && toolAccessFor(run, trigger) === "user-turn" ? trigger : null;
}

const activeTasks = (ctx: ToolContext) =>
  listTasks(ctx.ownerId, { conversationId: ctx.conversationId, scope: "active", limit: MATCH_LIMIT });

const optionalText = (max: number, description: string) => z.string().max(max).nullish().describe(description);

const startInput = z.object({
  title: z.string().trim().min(1).max(200).describe("Short human title, e.g. 'EU battery supply chain'"),
  prompt: z.string().trim().min(1).max(16_000).describe("What to research, in the user's words"),
  agent: z.string().max(100).nullish().describe("Who does the work; omit for Herald's own research"),
});

/**
 * The start tool's arguments for this server's workers: with remote agents or
 * described MCP servers configured, `agent` lists each (value = driver name,
 * description = the operator's routing text); otherwise there is nothing to
 * choose and the argument is left out.
 */
function startInputFor(choices: AgentChoice[]) {
  const { agent: _agent, ...fields } = startInput.shape;
  if (choices.length < 2) return z.object(fields);
  const literals = choices.map((c) => z.literal(c.driver).describe(neutralizeUntrusted(c.description)));
  const options = z.union(
    literals as unknown as [z.ZodLiteral<string>, z.ZodLiteral<string>, ...z.ZodLiteral<string>[]],
  );
  return z.object({
    ...fields,
    agent: options
      .nullish()
      .describe(
        "Who does the work: pick the option whose description fits the request best; omit for Herald's own research",
      ),
  });
}
const listInput = z.object({
  activeOnly: z.boolean().nullish().describe("Only tasks that are still running or waiting"),
});
const cancelInput = z.object({ task: optionalText(500, "Task title or id") });
const checkInput = z.object({ task: optionalText(500, "Task title or id") });
const updateInput = z.object({
  task: optionalText(500, "Task title or id"),
  message: z.string().trim().min(1).max(4000).describe("The additional instruction"),
});

/** Each tool's arguments by tool name, as its schema accepts them. */
export interface ToolInputs {
  [TOOL_NAMES.start]: z.infer<typeof startInput>;
  [TOOL_NAMES.list]: z.infer<typeof listInput>;
  [TOOL_NAMES.cancel]: z.infer<typeof cancelInput>;
  [TOOL_NAMES.check]: z.infer<typeof checkInput>;
  [TOOL_NAMES.update]: z.infer<typeof updateInput>;
}

// -------------------------------------------------------------------- tools ---

/** The tools a run is offered; read-only unless the run is a turn the user wrote (`toolAccessFor`). */
export function agentTools(ctx: ToolContext, access: ToolAccess = "read-only"): ToolSet {
  const all: ToolSet = {
    [TOOL_NAMES.start]: startTaskTool(ctx, driverChoices()),
    [TOOL_NAMES.list]: listTasksTool(ctx),
    [TOOL_NAMES.cancel]: cancelTaskTool(ctx),
    [TOOL_NAMES.check]: checkTaskTool(ctx, ctx.frame ?? createFrame()),
    [TOOL_NAMES.update]: updateTaskTool(ctx),
  };
  const allowed = access === "user-turn" ? Object.keys(all) : READ_ONLY_TOOLS;
  return Object.fromEntries(Object.entries(all).filter(([name]) => allowed.includes(name)));
}

function startTaskTool(ctx: ToolContext, choices: AgentChoice[]) {
  return tool({
    description:
      "Start long work (research, analysis, a report) as a durable background task in this conversation and return at once. " +
      "The user is told here when it finishes, fails, needs input or reaches the time they asked for; any delivery time is taken " +
      "from the user's message by Herald, so do not pass one. After calling, reply with one short acknowledgement. " +
      SAY_HINT +
      (choices.length > 1 ? " The work may go to a remote agent instead of Herald's own research: see `agent`." : ""),
    inputSchema: startInputFor(choices) as typeof startInput,
    execute: ({ title, prompt, agent }) =>
      guarded<StartTaskResult>(async () => {
        const trigger = await userTrigger(ctx);
        if (!trigger) return { error: NOT_A_USER_TURN };
        const delivery = deliveryFromMessage(trigger);
        const key = title.trim().replace(/\s+/g, " ").toLowerCase();
        const { task } = await startTask({
          ownerId: ctx.ownerId,
          conversationId: ctx.conversationId,
          title,
          prompt,
          // The user's pick in the composer wins; otherwise the model routed by the descriptions.
          driver: workChoiceOf(trigger) ?? agent ?? "research",
          // A retried run (same run id) finds the task its first attempt created.
          clientRequestId: `run:${ctx.runId}:start:${key}`,
          originRunId: ctx.runId,
          originMessageId: trigger.id,
          delivery,
          anchorAt: delivery ? trigger.createdAt : undefined,
        });
        const contract = toolDelivery(task.delivery, await readerZone(ctx.ownerId));
        return {
          taskId: task.id,
          title: neutralizeUntrusted(task.title),
          status: task.status,
          message: "Started in the background; the user will be told here when it needs attention.",
          ...(contract ? { delivery: contract } : {}),
          say: [
            `Started ${quoted(task.title)} in the background.`,
            contract ? deliverySay(contract) : "The user will be told here when it is done.",
          ].join(" "),
        };
      }),
  });
}

function listTasksTool(ctx: ToolContext) {
  return tool({
    description: "List this conversation's background tasks (newest activity first, at most 20).",
    inputSchema: listInput,
    execute: ({ activeOnly }) =>
      guarded<ListTasksResult>(async () => {
        const tasks = await listTasks(ctx.ownerId, {
          conversationId: ctx.conversationId,
          scope: activeOnly ? "active" : "all",
          limit: LIST_LIMIT,
        });
        return { tasks: tasks.map(toolRecord), count: tasks.length };
      }),
  });
}

function cancelTaskTool(ctx: ToolContext) {
  return tool({
    description:
      "Stop an active background task of this conversation. Pass its exact title or id (a distinctive part of the title also works); " +
      "omit only when exactly one task is active. If several match, nothing is cancelled and the candidates are returned: ask the user which one.",
    inputSchema: cancelInput,
    execute: ({ task }) =>
      guarded<CancelTaskResult>(async () => {
        if (!(await userTrigger(ctx))) return { cancelled: false, error: NOT_A_USER_TURN };
        const matches = matchTasks(await activeTasks(ctx), task);
        if (matches.length === 0) {
          return {
            cancelled: false,
            message: `No active background task matches ${task ? `"${neutralizeUntrusted(task)}"` : "this request"}`,
          };
        }
        if (matches.length > 1) {
          return {
            cancelled: false,
            candidates: matches.slice(0, CANDIDATE_LIMIT).map(candidate),
            message: "More than one active background task matches; ask the user which one",
          };
        }
        // Matches are of this conversation, where the reply will say it: the task's own terminal line stays hidden.
        const cancelled = await requestCancel(ctx.ownerId, matches[0].id, { answeredInChat: true });
        return {
          cancelled: true,
          task: toolRecord(cancelled),
          message: "Cancellation requested; committed partial results are kept.",
          say: `${quoted(cancelled.title)} is cancelled; anything it already published stays in the conversation.`,
        };
      }),
  });
}

function checkTaskTool(ctx: ToolContext, frame: Frame) {
  return tool({
    description:
      "Status of one background task of this conversation (any state): progress, delivery time and outcome, the latest published " +
      "report excerpt and host notices. Pass its title or id; omit when there is only one task. " +
      SAY_HINT,
    inputSchema: checkInput,
    execute: ({ task }) =>
      guarded<CheckTaskResult>(async () => {
        const all = await listTasks(ctx.ownerId, {
          conversationId: ctx.conversationId,
          scope: "all",
          limit: CHECK_LIMIT,
        });
        let matches = matchTasks(all, task);
        if (!task?.trim() && matches.length > 1) {
          // A bare "is it done?" means the one still running, when there is one.
          const active = matches.filter((t) => ACTIVE_STATUSES.includes(t.status));
          if (active.length === 1) matches = active;
        }
        if (matches.length === 0 && task?.trim()) {
          const byId = await getTaskDetail(ctx.ownerId, task.trim());
          if (byId && byId.conversationId === ctx.conversationId)
            return checkResult(byId, frame, await readerZone(ctx.ownerId));
        }
        if (matches.length === 0) {
          return {
            found: false,
            message: `No background task in this conversation matches ${task ? `"${neutralizeUntrusted(task)}"` : "this request"}`,
            tasks: all.slice(0, CANDIDATE_LIMIT).map(candidate),
          };
        }
        if (matches.length > 1) {
          return {
            found: false,
            candidates: matches.slice(0, CANDIDATE_LIMIT).map(candidate),
            message: "More than one background task matches; ask the user which one",
          };
        }
        const detail = await getTaskDetail(ctx.ownerId, matches[0].id);
        if (!detail) return { found: false, message: "That task no longer exists" };
        return checkResult(detail, frame, await readerZone(ctx.ownerId));
      }),
  });
}

function updateTaskTool(ctx: ToolContext) {
  return tool({
    description:
      "Give an active background task new instructions (e.g. also cover a subtopic); the next research step honours them. " +
      "Pass the task's title or id; omit when exactly one task is active.",
    inputSchema: updateInput,
    execute: ({ task, message }) =>
      guarded<UpdateTaskResult>(async () => {
        if (!(await userTrigger(ctx))) return { updated: false, error: NOT_A_USER_TURN };
        const matches = matchTasks(await activeTasks(ctx), task);
        if (matches.length === 0) {
          return {
            updated: false,
            message: `No active background task matches ${task ? `"${neutralizeUntrusted(task)}"` : "this request"}`,
          };
        }
        if (matches.length > 1) {
          return {
            updated: false,
            candidates: matches.slice(0, CANDIDATE_LIMIT).map(candidate),
            message: "More than one active background task matches; ask the user which one",
          };
        }
        const updated = await updateTask(ctx.ownerId, matches[0].id, message);
        return {
          updated: true,
          task: toolRecord(updated),
          instruction: neutralizeUntrusted(message),
          message: "Instruction queued; the next research step will take it into account.",
        };
      }),
  });
}

function checkResult(detail: PublicTaskDetail, frame: Frame, timeZone: string): CheckTaskFound {
  const latest =
    detail.publications.find((p) => p.id === detail.latestPublicationId) ?? detail.publications.at(-1) ?? null;
  const progress = detail.progress;
  const contract = toolDelivery(detail.delivery, timeZone);
  const stopping = detail.cancelRequested && ACTIVE_STATUSES.includes(detail.status);
  const say = [
    `${quoted(detail.title)} is ${stopping ? "stopping" : (statusText("en", detail.status) ?? "in an unknown state")}.`,
    latest
      ? latest.partial
        ? `A partial report (version ${latest.version}) is in the conversation.`
        : "The final report is in the conversation."
      : "Nothing has been published yet.",
    contract && ACTIVE_STATUSES.includes(detail.status) ? deliverySay(contract) : "",
    contract ? (outcomeSay(detail.delivery.outcome) ?? "") : "",
  ]
    .filter(Boolean)
    .join(" ");
  return {
    found: true,
    task: toolRecord(detail),
    status: detail.status,
    progress: progress
      ? {
          text: neutralizeUntrusted(
            progress.text.length > PROGRESS_CHARS ? `${progress.text.slice(0, PROGRESS_CHARS - 1)}…` : progress.text,
          ),
          at: progress.at,
        }
      : null,
    delivery: contract ? { ...contract, outcome: detail.delivery.outcome } : null,
    say,
    latestPublication: latest
      ? {
          version: latest.version,
          partial: latest.partial,
          createdAt: latest.createdAt,
          truncated: latest.content.length > EXCERPT_CHARS,
          content: frame.wrap(latest.content.slice(0, EXCERPT_CHARS), "published report excerpt"),
        }
      : null,
    inputRequest:
      detail.inputRequest === null || detail.inputRequest === undefined
        ? null
        : frame.wrap(JSON.stringify(detail.inputRequest).slice(0, EXCERPT_CHARS), "input request"),
    notices: detail.notices.map((n) => ({
      key: neutralizeUntrusted(n.key),
      outcome: n.outcome,
      createdAt: n.createdAt,
    })),
  };
}
