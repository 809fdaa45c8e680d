import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { startTask } from "@/lib/tasks/start-task";
import { postMessage } from "@/lib/chat/post-message";
import * as cancelRoute from "@/app/api/tasks/[id]/cancel/route";
import * as historyRoute from "@/app/api/tasks/[id]/history/route";
import * as messagesRoute from "@/app/api/conversations/[id]/messages/route";
import {
  call,
  createConversationFor,
  signUp,
  startWorkerProcess,
  stopWorkers,
  waitFor,
  waitForBeat,
  type TestUser,
  type WorkerProc,
} from "@/tests/helpers";

// A cancel asked for in the chat posted two messages for one moment (the agent's reply and the
// task's terminal line). The reply is the one visible message; the terminal line is kept hidden for the timeline.

let w: WorkerProc;
let u: TestUser;
beforeAll(async () => {
  w = startWorkerProcess({ HERALD_POLL_MS: "300", HERALD_ALLOW_SIMULATE: "1" });
  u = await signUp("CancelInChat");
  await waitForBeat(w);
});
afterAll(() => stopWorkers(w));

const db = () => getDb();
const task = (id: string) => db().task.findUniqueOrThrow({ where: { id } });

async function launch(title: string) {
  const conv = await createConversationFor(u);
  const { task: t } = await startTask({
    ownerId: u.id,
    conversationId: conv,
    title,
    prompt: "p",
    clientRequestId: randomUUID(),
    options: { simulate: { steps: 30, stepMs: 1000 } },
  });
  await waitFor(async () => (await task(t.id)).status === "running", 20_000, "running");
  return { id: t.id, conv };
}

/** Visible messages from `fromSeq` on, as the conversation's GET serves them. */
async function shown(conv: string, fromSeq: number) {
  const res = await call(messagesRoute.GET, { user: u, params: { id: conv } });
  expect(res.status).toBe(200);
  return (res.json.messages as { seq: number; kind: string; content: string }[]).filter((m) => m.seq > fromSeq);
}

async function timelineTypes(id: string) {
  const res = await call(historyRoute.GET, { user: u, path: `/api/tasks/${id}/history`, params: { id } });
  expect(res.status).toBe(200);
  return (res.json.items as { type: string; data?: { status?: string } }[]).map((i) => i.type);
}

describe("one moment, one message for a cancel", () => {
  it("asked in the chat: the reply is the one visible message; the timeline still shows the cancel", async () => {
    const t = await launch("cobalt research");
    const { message } = await postMessage(u.id, t.conv, {
      content: "cancel the cobalt research",
      clientMessageId: randomUUID(),
    });
    await waitFor(async () => (await task(t.id)).status === "cancelled", 30_000, "cancel landed");
    const reply = await waitFor(
      async () => (await shown(t.conv, message.seq)).find((m) => m.kind === "assistant"),
      30_000,
      "the reply",
    );
    expect(reply.content).toMatch(/cobalt research.*is cancelled/);
    const terminal = await db().message.findFirstOrThrow({ where: { taskId: t.id, kind: "terminal" } });
    expect(terminal.hidden).toBe(true);
    // Nothing but the reply (a step that committed before the fence may add a progress line, which is not
    // counted as unread either), and the hidden line does not count as unread.
    expect((await shown(t.conv, message.seq)).filter((m) => m.kind !== "progress").map((m) => m.kind)).toEqual([
      "assistant",
    ]);
    const conv = await db().conversation.findUniqueOrThrow({ where: { id: t.conv } });
    expect(conv.unreadCount).toBe(1);
    const types = await timelineTypes(t.id);
    expect(types).toContain("cancel_requested");
    expect(types).toContain("terminal");
  });

  it("from the sheet: the task's terminal line is the one visible message", async () => {
    const t = await launch("nickel research");
    const before = (await db().conversation.findUniqueOrThrow({ where: { id: t.conv } })).messageSeq;
    expect((await call(cancelRoute.POST, { user: u, method: "POST", params: { id: t.id } })).status).toBe(200);
    await waitFor(async () => (await task(t.id)).status === "cancelled", 30_000, "cancel landed");
    const terminal = await db().message.findFirstOrThrow({ where: { taskId: t.id, kind: "terminal" } });
    expect(terminal.hidden).toBe(false);
    expect((await shown(t.conv, before)).filter((m) => m.kind !== "progress").map((m) => m.kind)).toEqual(["terminal"]);
    expect(await timelineTypes(t.id)).toContain("terminal");
  });
});
