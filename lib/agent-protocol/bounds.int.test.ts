import { describe, expect, it } from "vitest";
import * as threadsRoute from "@/app/api/ap/threads/route";
import * as runsRoute from "@/app/api/ap/threads/[id]/runs/route";
import { MAX_MESSAGE_CHARS, MAX_UPDATE_CHARS } from "@/lib/contract/schemas";
import { getDb } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { apiKeyFor, call, signUp, type TestUser } from "@/tests/helpers";
import { createRun, RESEARCH_ASSISTANT } from "./create-run";

// The chat's limits hold on the Agent Protocol path too, in createRun itself. No worker
// runs here: a started task stays in progress, so a second run meets an active one.

const keyOf = async (user: TestUser) => (await apiKeyFor(user)).key;

async function thread(key: string): Promise<string> {
  const r = await call(threadsRoute.POST, { body: {}, headers: { "x-api-key": key } });
  expect(r.status).toBeLessThan(300);
  return r.json.thread_id as string;
}

const run = (key: string, threadId: string, body: object) =>
  call(runsRoute.POST, {
    body: { assistant_id: RESEARCH_ASSISTANT, ...body },
    params: { id: threadId },
    headers: { "x-api-key": key },
  });

/** A user message of `chars` characters in parts each within the schema's per-part limit. */
const inParts = (chars: number) => {
  const part = 15_000;
  const parts = Array.from({ length: Math.ceil(chars / part) }, (_, i) => ({
    type: "text",
    text: "p".repeat(Math.min(part, chars - i * part)),
  }));
  return { input: { messages: [{ role: "user", content: parts }] } };
};

describe("Agent Protocol runs are bounded like the chat", () => {
  it("a 60,000-character prompt is a 400 naming input.messages; no task, no run", async () => {
    const u = await signUp("ApLongPrompt");
    const key = await keyOf(u);
    const t = await thread(key);
    // Text parts join with newlines: the prompt is a little longer than the characters sent.
    const r = await run(key, t, inParts(60_000));
    expect(r.status).toBe(400);
    expect(r.json.error.field).toBe("input.messages");
    expect(await getDb().task.count({ where: { ownerId: u.id } })).toBe(0);
    expect(await getDb().apRun.count({ where: { ownerId: u.id } })).toBe(0);
  });

  it("createRun itself refuses it, whoever calls it", async () => {
    const u = await signUp("ApDirect");
    const t = await thread(await keyOf(u));
    const err = await createRun(u.id, t, {
      assistant_id: RESEARCH_ASSISTANT,
      input: { messages: [{ role: "user", content: "x".repeat(60_000) }] },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).field).toBe("input.messages");
    expect(await getDb().task.count({ where: { ownerId: u.id } })).toBe(0);
  });

  it("a prompt of exactly the chat's message limit starts a run", async () => {
    const u = await signUp("ApAtLimit");
    const key = await keyOf(u);
    const r = await run(key, await thread(key), {
      input: { messages: [{ role: "user", content: "y".repeat(MAX_MESSAGE_CHARS) }] },
    });
    expect(r.status).toBeLessThan(300);
  });

  it("an interrupt carries new instructions: over the update limit a 400, nothing added to the task; within it, accepted", async () => {
    const u = await signUp("ApUpdate");
    const key = await keyOf(u);
    const t = await thread(key);
    expect(
      (await run(key, t, { input: { messages: [{ role: "user", content: "research update limits" }] } })).status,
    ).toBeLessThan(300);
    const [task] = await getDb().task.findMany({ where: { ownerId: u.id } });

    const over = await run(key, t, {
      multitask_strategy: "interrupt",
      input: { messages: [{ role: "user", content: "u".repeat(MAX_UPDATE_CHARS + 1) }] },
    });
    expect(over.status).toBe(400);
    expect(over.json.error.field).toBe("input.messages");
    const after = await getDb().task.findUniqueOrThrow({ where: { id: task.id } });
    expect(after.pendingUpdates ?? []).toEqual([]);

    const ok = await run(key, t, {
      multitask_strategy: "interrupt",
      input: { messages: [{ role: "user", content: "focus on costs" }] },
    });
    expect(ok.status).toBeLessThan(300);
    expect((await getDb().task.findUniqueOrThrow({ where: { id: task.id } })).pendingUpdates).toEqual([
      "focus on costs",
    ]);
  });

  it("pending instructions are bounded as in the chat: past 20 an interrupt is refused", async () => {
    const u = await signUp("ApPending");
    const key = await keyOf(u);
    const t = await thread(key);
    expect(
      (await run(key, t, { input: { messages: [{ role: "user", content: "research pending limits" }] } })).status,
    ).toBeLessThan(300);
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      statuses.push(
        (
          await run(key, t, {
            multitask_strategy: "interrupt",
            input: { messages: [{ role: "user", content: `update ${i}` }] },
          })
        ).status,
      );
    }
    expect(statuses.slice(0, 20).every((s) => s < 300)).toBe(true);
    expect(statuses[20]).toBe(409);
  });
});
