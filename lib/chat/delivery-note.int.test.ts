import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { postMessage } from "@/lib/chat/post-message";
import {
  createConversationFor,
  signUp,
  startWorkerProcess,
  stopWorkers,
  waitFor,
  type TestUser,
  type WorkerProc,
} from "@/tests/helpers";

/**
 * The host's sentence under a reply about the message's deadline, through a
 * real worker process and the offline model: a deadline on a message that
 * starts no task says so; a task started with a deadline under a minute says
 * what to expect; an ordinary deadline adds nothing.
 */
let worker: WorkerProc;
let user: TestUser;

beforeAll(async () => {
  user = await signUp("Deadliner");
  worker = startWorkerProcess();
});
afterAll(() => stopWorkers(worker));

async function replyTo(content: string, delivery?: { mode: "at" | "by"; dueInSeconds: number }) {
  const conversationId = await createConversationFor(user);
  const { run } = await postMessage(user.id, conversationId, {
    content,
    clientMessageId: randomUUID(),
    ...(delivery ? { delivery } : {}),
  });
  const reply = await waitFor(
    () => getDb().message.findFirst({ where: { runId: run.id, kind: "assistant" } }),
    30_000,
    `the reply to "${content}"`,
  );
  const tasks = await getDb().task.count({ where: { conversationId } });
  return { text: reply.content, tasks };
}

describe("delivery note under the reply", () => {
  it("says that a deadline on a plain chat message does not apply", async () => {
    const { text, tasks } = await replyTo("Hello there", { mode: "by", dueInSeconds: 600 });
    expect(tasks).toBe(0);
    expect(text).toMatch(
      /No background task was started for this message, so the deadline you set \(tell me by (\w{3}, \w{3} \d{1,2}, )?\d{1,2}:\d{2}:\d{2} [AP]M, in 10 min\) does not apply/,
    );
  });

  it("explains a deadline too short for research, and is silent for a normal one", async () => {
    const short = await replyTo("research heat pumps and tell me within 10 seconds");
    expect(short.tasks).toBe(1);
    expect(short.text).toContain("10 seconds is very little time for research");

    const normal = await replyTo("research battery recycling", { mode: "by", dueInSeconds: 600 });
    expect(normal.tasks).toBe(1);
    expect(normal.text).not.toMatch(/No background task|very little time/);
  });
});
