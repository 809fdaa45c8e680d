import { beforeEach, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { db } from "@/lib/db/kysely";
import { sql } from "kysely";
import { registerDriver } from "@/lib/drivers/registry";
import type { Driver, StepOutcome } from "@/lib/drivers/types";
import * as inputRoute from "@/app/api/tasks/[id]/input/route";
import { startTask } from "./start-task";
import { claimExecution } from "./sql";
import { executeTask } from "@/lib/runtime/execute-task";
import { ERROR_CATEGORIES } from "@/lib/errors/categories";
import { call, createConversationFor, signUp, type TestUser } from "@/tests/helpers";

/**
 * The execution loop's remote-driver paths (polling, input_required, degraded
 * tracking, normalisation), driven by a scripted driver double: the subject is
 * Herald's state machine, not a remote protocol.
 */
let script: (() => StepOutcome | Promise<StepOutcome>)[] = [];
const answers: string[] = [];
const remote: Driver = {
  async submit() {
    return { remoteRef: `remote-${randomUUID()}` };
  },
  async step() {
    const next = script.shift();
    if (!next) throw new Error("script exhausted");
    return next();
  },
  async cancel() {
    return { status: "cancelled" };
  },
  async answer(_task, response) {
    answers.push(response);
  },
  maxConsecutiveErrors: Infinity,
};
registerDriver("remote-double", remote);

let u: TestUser;
beforeEach(async () => {
  script = [];
  answers.length = 0;
  u = await signUp("Remote");
});

async function newTask() {
  const conv = await createConversationFor(u);
  const { task } = await startTask({
    ownerId: u.id,
    conversationId: conv,
    title: "remote",
    prompt: "p",
    driver: "remote-double",
    clientRequestId: randomUUID(),
  });
  return task.id;
}

/** One claim of this task, ignoring backoff (tests do not wait for timers). */
async function tick(id: string) {
  await db()
    .updateTable("task")
    .set({ nextRunAt: sql<Date>`now()` })
    .where("id", "=", id)
    .execute();
  const [row] = await claimExecution("test-worker", 1, [id]);
  if (!row) throw new Error("nothing to claim");
  return executeTask(row, new AbortController().signal);
}
const row = (id: string) => getDb().task.findUniqueOrThrow({ where: { id } });

describe("remote driver paths of the execution loop", () => {
  it("input_required is an outbox event; the stored answer reaches the driver on the next claim", async () => {
    const id = await newTask();
    await tick(id); // submit
    script.push(() => ({ status: "input_required", inputRequest: { question: "Which region?" }, pollAfterMs: 30_000 }));
    await tick(id);
    const waiting = await row(id);
    expect(waiting.status).toBe("input_required");
    expect(waiting.inputRequest).toEqual({ question: "Which region?" });
    expect(waiting.notificationStatus).toBe("pending");
    expect(waiting.nextRunAt!.getTime()).toBeGreaterThan(Date.now() + 20_000);

    const r = await call(inputRoute.POST, { user: u, params: { id }, body: { response: "Europe" } });
    expect(r.status).toBe(200);
    expect((await call(inputRoute.POST, { user: u, params: { id }, body: { response: "again" } })).status).toBe(409);
    expect(await tick(id)).toBe("stepped");
    expect(answers).toEqual(["Europe"]);
    const resumed = await row(id);
    expect([resumed.status, resumed.inputRequest, resumed.inputResponse]).toEqual(["running", null, null]);

    script.push(() => ({ publish: { partial: false, content: "remote result" }, finished: true }));
    expect(await tick(id)).toBe("finished");
    expect((await row(id)).status).toBe("succeeded");
  });

  it("answering a task that is not waiting is a 409; another account's task is a 404", async () => {
    const id = await newTask();
    expect((await call(inputRoute.POST, { user: u, params: { id }, body: { response: "x" } })).status).toBe(409);
    const other = await signUp("Other");
    expect((await call(inputRoute.POST, { user: other, params: { id }, body: { response: "x" } })).status).toBe(404);
  });

  it("three consecutive poll errors report degraded tracking; remote tasks keep being polled; recovery clears it", async () => {
    const id = await newTask();
    await tick(id);
    for (let i = 0; i < 4; i++) script.push(() => Promise.reject(new Error(`remote down ${i}`)));
    for (let i = 0; i < 4; i++) expect(await tick(id)).toBe("retry");
    const degraded = await row(id);
    expect(degraded.status).toBe("running");
    expect(degraded.consecutiveErrors).toBe(4);
    expect(degraded.eventVersion).toBe(1);
    expect(degraded.notificationStatus).toBe("pending");
    script.push(() => ({ status: "running", pollAfterMs: 1000 }));
    expect(await tick(id)).toBe("stepped");
    expect((await row(id)).consecutiveErrors).toBe(0);
  });

  it("the remote's own terminal status is stored; a bad pollAfter is a protocol failure, not a retry", async () => {
    const a = await newTask();
    await tick(a);
    script.push(() => ({ status: "failed", error: "remote says no" }));
    expect(await tick(a)).toBe("failed");
    // The remote's words stay in the log; the row says which kind of failure it was.
    expect(await row(a)).toMatchObject({ status: "failed", error: ERROR_CATEGORIES.remote_failed });

    const b = await newTask();
    await tick(b);
    script.push(() => ({ status: "running", pollAfterMs: Number.NaN }));
    expect(await tick(b)).toBe("failed");
    expect((await row(b)).error).toBe(ERROR_CATEGORIES.protocol);
  });
});
