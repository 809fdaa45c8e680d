import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { jsonb, transaction } from "@/lib/db/kysely";
import type { ApRun } from "@/lib/contract/ap";
import { isTerminalStatus } from "@/lib/contract/task";
import { ApiError } from "@/lib/errors/api-error";
import { wakeWorkers } from "@/lib/events/emit";
import { requestCancel } from "@/lib/tasks/request-cancel";
import { startTask } from "@/lib/tasks/start-task";
import { updateTask } from "@/lib/tasks/update-task";
import { assertMetadataBounded, assertPromptBounded } from "./bounds";
import { textOf, toApRun } from "./project";
import { ownThread, threadTasks } from "./thread-access";
import { insertApRun } from "./sql";
import { insertWebhook, WEBHOOK_LOOP } from "./webhook-sql";

/** The assistant id of Herald's native research (the only graph this server offers). */
export const RESEARCH_ASSISTANT = "research";

type Strategy = "reject" | "interrupt" | "rollback" | "enqueue";

export interface RunInput {
  assistant_id: string;
  input: { messages: { role?: string; type?: string; content: string | { type: string; text?: string }[] }[] };
  metadata?: Record<string, unknown> | null;
  multitask_strategy?: Strategy | null;
  /** POSTed once the run ends (lib/agent-protocol/deliver-webhook.ts). */
  webhook?: string | null;
}

/**
 * A run is a Herald research task in the thread's conversation, under the
 * account's quotas like any other. With work still active on the thread the
 * multitask strategy decides: `reject` (the default) answers 409, `interrupt`
 * hands the new message to the running task as instructions (the task keeps
 * its id; the older run then reads `interrupted`), `rollback` cancels it and
 * starts anew, `enqueue` starts a second task beside it.
 */
export async function createRun(
  ownerId: string,
  threadId: string,
  body: RunInput,
  opts: { keyId?: string } = {},
): Promise<ApRun> {
  await ownThread(ownerId, threadId);
  if (body.assistant_id !== RESEARCH_ASSISTANT) {
    throw new ApiError(
      "not_found",
      `assistant_id: no assistant "${body.assistant_id.slice(0, 100)}" here; use "${RESEARCH_ASSISTANT}"`,
      "assistant_id",
    );
  }
  const human = [...body.input.messages].reverse().find((m) => ["user", "human"].includes(m.role ?? m.type ?? "user"));
  const prompt = human ? textOf(human.content).trim() : "";
  if (!prompt) throw new ApiError("bad_request", "input.messages: needs a user message with text", "input.messages");

  assertMetadataBounded(body.metadata);

  const strategy: Strategy = body.multitask_strategy ?? "reject";
  const active = (await threadTasks(ownerId, threadId)).filter(
    (t) => !isTerminalStatus(t.status) && t.cancelRequestedAt === null,
  );
  if (active.length > 0 && strategy === "reject") {
    throw new ApiError(
      "conflict",
      "The thread has a run in progress; wait, or send multitask_strategy interrupt, rollback or enqueue",
    );
  }
  // Checked before a rollback cancels anything: a refused run changes nothing.
  assertPromptBounded(prompt, active.length > 0 && strategy === "interrupt" ? "update" : "message");
  // Before anything starts: a refused run changes nothing.
  let signingSecret: string | null = null;
  if (body.webhook) {
    const key = opts.keyId
      ? await getDb().apiKey.findFirst({ where: { id: opts.keyId, ownerId }, select: { hash: true } })
      : null;
    if (!key)
      throw new ApiError("bad_request", "webhook: needs a run created with an API key (its signing secret)", "webhook");
    signingSecret = key.hash;
  }
  const runId = randomUUID();
  let taskId: string;
  if (active.length > 0 && strategy === "interrupt") {
    taskId = (await updateTask(ownerId, active[active.length - 1].id, prompt)).id;
  } else {
    if (strategy === "rollback") for (const t of active) await requestCancel(ownerId, t.id);
    const title = prompt.split("\n")[0].slice(0, 120);
    // The run id doubles as the task's idempotency key: one task per run, whatever retries.
    const { task } = await startTask({ ownerId, conversationId: threadId, title, prompt, clientRequestId: runId });
    taskId = task.id;
  }
  const row = await transaction(async (tx) => {
    const created = await insertApRun(tx, {
      id: runId,
      ownerId,
      conversationId: threadId,
      taskId,
      assistantId: body.assistant_id,
      input: prompt,
      metadata: jsonb(body.metadata ?? {}),
      multitaskStrategy: strategy,
    });
    // The webhook's outbox row commits with the run: once the run exists its end will be POSTed.
    if (body.webhook) {
      await insertWebhook(tx, { ownerId, runId, threadId, url: body.webhook, secret: signingSecret! });
    }
    // Taking the task over ends the runs before this one: their webhooks are due at this commit.
    if (active.length > 0 && strategy === "interrupt") await wakeWorkers(tx, WEBHOOK_LOOP);
    return created;
  });
  const task = await getDb().task.findUniqueOrThrow({ where: { id: taskId } });
  return toApRun(row, task, false);
}
