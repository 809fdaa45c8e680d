import { describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/client";
import { listMessages } from "@/lib/chat/queries";
import { ERROR_CATEGORIES } from "@/lib/errors/categories";
import { createConversationFor, signUp, type TestUser } from "@/tests/helpers";
import { terminal } from "@/lib/runtime/execute-task";
import { transactionWithEvents } from "@/lib/events/emit";

/** A running task no worker will pick up (nextRunAt a day away): terminal() is called by hand. */
async function runningTask(user: TestUser, conversationId: string, title: string) {
  return getDb().task.create({
    data: {
      ownerId: user.id,
      conversationId,
      title,
      prompt: `research ${title}`,
      status: "running",
      nextRunAt: new Date(Date.now() + 86_400_000),
    },
  });
}

async function end(user: TestUser, title: string, status: "succeeded" | "failed" | "cancelled", error: string | null) {
  const conv = await createConversationFor(user);
  const task = await runningTask(user, conv, title);
  const done = await transactionWithEvents((tx) => terminal(tx, task.id, status, error));
  const messages = (await listMessages(user.id, conv))!.filter((m) => m.kind === "terminal");
  expect(messages).toHaveLength(1);
  const events = await getDb().event.findMany({
    where: { ownerId: user.id, taskId: task.id, type: "message.created" },
  });
  const sent = events
    .map((e) => (e.payload as { message: { kind: string; meta: unknown } }).message)
    .filter((m) => m.kind === "terminal");
  return { done: done!, message: messages[0], sent };
}

describe("terminal(): the TerminalFact message", () => {
  it("a failure carries its category and stored sentence in meta; the content says it in plain words", async () => {
    const u = await signUp("TerminalFailed");
    const sentence = ERROR_CATEGORIES.remote_failed;
    const { done, message, sent } = await end(u, "Heat pumps", "failed", sentence);
    const completedAt = done.completedAt!.toISOString();
    expect(message.content).toBe(`"Heat pumps" failed: ${sentence}`);
    expect(message.meta).toEqual({
      status: "failed",
      completedAt,
      title: "Heat pumps",
      errorCode: "remote_failed",
      error: sentence,
    });
    // The feed carries the same projection.
    expect(sent).toEqual([expect.objectContaining({ meta: message.meta })]);
  });

  it("a failure without a category keeps the sentence, with errorCode null", async () => {
    const u = await signUp("TerminalStopped");
    const { message } = await end(u, "Lithium", "failed", "stopped at the deadline");
    expect(message.meta).toMatchObject({ status: "failed", errorCode: null, error: "stopped at the deadline" });
  });

  it("success and cancellation carry no error fields", async () => {
    const u = await signUp("TerminalOk");
    const ok = await end(u, "Cobalt", "succeeded", null);
    expect(ok.message.meta).toEqual({
      status: "succeeded",
      completedAt: ok.done.completedAt!.toISOString(),
      title: "Cobalt",
    });
    const cancelled = await end(u, "Nickel", "cancelled", null);
    expect(cancelled.message.meta).not.toHaveProperty("error");
    expect(cancelled.message.content).toBe(`"Nickel" was cancelled; anything it already published stays.`);
    expect(ok.message.content).toBe(`"Cobalt" finished.`);
  });
});
