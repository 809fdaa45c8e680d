import { afterAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import * as tasksRoute from "@/app/api/tasks/route";
import * as taskRoute from "@/app/api/tasks/[id]/route";
import {
  call,
  createConversationFor,
  signUp,
  startWorkerProcess,
  stopWorkers,
  waitFor,
  type WorkerProc,
} from "@/tests/helpers";
import type { PublicTask } from "@/lib/contract/task";

const started: WorkerProc[] = [];
afterAll(() => stopWorkers(...started));

describe("task.steps: steps done of planned, for the progress bar", () => {
  it("counts the plan and each section as a real worker commits them, with the database time of each", async () => {
    const u = await signUp("Steps");
    const conv = await createConversationFor(u);
    const created = await call(tasksRoute.POST, {
      user: u,
      body: {
        conversationId: conv,
        title: "Steps",
        prompt: "research steps",
        clientRequestId: randomUUID(),
        options: { simulate: { steps: 3, stepMs: 400 } },
      },
    });
    expect(created.status).toBe(202);
    const id = created.json.task.id as string;
    expect(created.json.task.steps).toBeNull();
    started.push(startWorkerProcess({ HERALD_TASK_LEASE_MS: "2000" }));

    const read = async () => (await call(taskRoute.GET, { user: u, params: { id } })).json.task as PublicTask;
    const seen: { done: number; total: number; at: string }[] = [];
    const done = await waitFor(
      async () => {
        const t = await read();
        if (t.steps && seen.at(-1)?.done !== t.steps.done) seen.push(t.steps);
        return t.status === "succeeded" ? t : null;
      },
      30_000,
      "task to succeed",
    );
    expect(done.steps).toMatchObject({ done: 4, total: 4 });
    // Seen while running: counts only grow, against a fixed total of plan + 3 sections, at database times from startedAt on.
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.every((s) => s.total === 4)).toBe(true);
    expect(seen.map((s) => s.done)).toEqual([...seen.map((s) => s.done)].sort((a, b) => a - b));
    expect(seen.map((s) => Date.parse(s.at))).toEqual([...seen.map((s) => Date.parse(s.at))].sort((a, b) => a - b));
    expect(Date.parse(seen[0].at)).toBeGreaterThanOrEqual(Date.parse(done.startedAt!));
  });
});
