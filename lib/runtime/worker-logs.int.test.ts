import { afterAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { postMessage } from "@/lib/chat/post-message";
import { startTask } from "@/lib/tasks/start-task";
import {
  createConversationFor,
  signUp,
  startWorkerProcess,
  stopWorkers,
  waitFor,
  type WorkerProc,
} from "@/tests/helpers";

let worker: WorkerProc | null = null;
afterAll(async () => {
  if (worker) await stopWorkers(worker);
});

describe("a worker's log", () => {
  it("is JSON lines with the worker's ids, and carries none of the user's text", async () => {
    const u = await signUp("Worker logs");
    const conv = await createConversationFor(u);
    const secret = `zebra-${randomUUID().slice(0, 8)} quarterly merger plans`;
    worker = startWorkerProcess({ HERALD_LOG_LEVEL: "debug" });
    const { run } = await postMessage(u.id, conv, {
      content: `Please remember: ${secret}`,
      clientMessageId: randomUUID(),
    });
    const { task } = await startTask({
      ownerId: u.id,
      conversationId: conv,
      title: `Research ${secret}`,
      prompt: `Research ${secret}`,
      clientRequestId: randomUUID(),
      options: { simulate: { steps: 1, stepMs: 0 } },
    });
    const db = getDb();
    await waitFor(
      async () => (await db.run.findUniqueOrThrow({ where: { id: run.id } })).status === "succeeded",
      60_000,
      "turn",
    );
    await waitFor(
      async () => (await db.task.findUniqueOrThrow({ where: { id: task.id } })).status === "succeeded",
      60_000,
      "task",
    );
    await waitFor(async () => /"msg":"started \(loops/.test(worker!.output()), 10_000, "start line");
    await stopWorkers(worker);

    const out = worker.output();
    expect(out).not.toContain(secret.split(" ")[0]);
    expect(out).not.toContain("merger");
    const lines = out.split("\n").filter((l) => l.startsWith("{"));
    expect(lines.length).toBeGreaterThan(0);
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const r of records) {
      expect(typeof r.level).toBe("number");
      expect(typeof r.time).toBe("number");
      expect(typeof r.msg).toBe("string");
    }
    const started = records.find((r) => String(r.msg).startsWith("started (loops"));
    expect(started?.workerId).toMatch(/:\d+:/);
  });
});
