import { afterEach, describe, expect, it, vi } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { db } from "@/lib/db/kysely";
import { sql } from "kysely";
import { registerDriver } from "@/lib/drivers/registry";
import type { Driver, SubmitResult } from "@/lib/drivers/types";
import { startTask } from "./start-task";
import { claimExecution } from "./sql";
import { executeTask } from "@/lib/runtime/execute-task";
import { ERROR_CATEGORIES } from "@/lib/errors/categories";
import { createConversationFor, signUp } from "@/tests/helpers";

// A driver double: the tests are about Herald's submit rules, not about a remote peer.
const calls = { submit: 0, cancel: 0 };
let nextHandle: () => SubmitResult | Promise<SubmitResult> = () => ({ remoteRef: `remote-${randomUUID()}` });
let cancelFails = false;
const double: Driver = {
  async submit() {
    calls.submit += 1;
    return await nextHandle();
  },
  async step() {
    throw new Error("not used");
  },
  async cancel() {
    calls.cancel += 1;
    if (cancelFails) throw new Error("compensation failed too");
    return { status: "cancelled" };
  },
};
registerDriver("double", double);

// publicError logs the raw error in a JSON line with "context":"tasks <id>"; the row only gets the category's sentence.
const errorLog = vi.spyOn(console, "error").mockImplementation(() => {});
const logged = () => errorLog.mock.calls.flat().map(String).join("\n");
const taskLog = (id: string) =>
  errorLog.mock.calls
    .filter((c) => String(c[0]).includes(`"context":"tasks ${id}"`))
    .flat()
    .map(String)
    .join("\n");

afterEach(() => {
  errorLog.mockClear();
  calls.submit = 0;
  calls.cancel = 0;
  cancelFails = false;
  nextHandle = () => ({ remoteRef: `remote-${randomUUID()}` });
});

async function newTask() {
  const u = await signUp("Submit");
  const conv = await createConversationFor(u);
  const { task } = await startTask({
    ownerId: u.id,
    conversationId: conv,
    title: "t",
    prompt: "p",
    driver: "double",
    clientRequestId: randomUUID(),
  });
  return task.id;
}

async function claimAndRun(id: string) {
  const [row] = await claimExecution("test-worker", 1, [id]);
  expect(row?.id).toBe(id);
  return executeTask(row, new AbortController().signal);
}

describe("submit rules (docs/architecture.md#drivers)", () => {
  it("the launch intent is persisted before the driver is called, the handle before the task counts as queued", async () => {
    const id = await newTask();
    const intent = await getDb().task.findUniqueOrThrow({ where: { id } });
    expect(intent.status).toBe("submitted");
    expect(intent.remoteRef).toBeNull();
    expect(calls.submit).toBe(0);
    expect(await claimAndRun(id)).toBe("submitted");
    const queued = await getDb().task.findUniqueOrThrow({ where: { id } });
    expect(queued.status).toBe("queued");
    expect(queued.remoteRef).toMatch(/^remote-/);
    expect(calls).toEqual({ submit: 1, cancel: 0 });
  });

  it("a lease lost while submitting: the untracked remote work is compensated", async () => {
    const id = await newTask();
    const [row] = await claimExecution("test-worker", 1, [id]);
    nextHandle = async () => {
      // Someone cancels while the remote call is in flight: our guard will miss.
      await db()
        .updateTable("task")
        .set({ cancelRequestedAt: sql<Date>`now()`, leaseToken: null })
        .where("id", "=", id)
        .execute();
      return { remoteRef: `remote-${randomUUID()}` };
    };
    const outcome = await executeTask(row, new AbortController().signal);
    expect(outcome).toBe("lost");
    expect(calls.cancel).toBe(1);
    expect((await getDb().task.findUniqueOrThrow({ where: { id } })).remoteRef).toBeNull();
  });

  it("a unique-handle conflict is not compensated: another row owns that remote task", async () => {
    const owner = await newTask();
    await claimAndRun(owner);
    const taken = (await getDb().task.findUniqueOrThrow({ where: { id: owner } })).remoteRef!;
    const id = await newTask();
    nextHandle = () => ({ remoteRef: taken });
    expect(await claimAndRun(id)).toBe("retry");
    expect(calls.cancel).toBe(0);
    const row = await getDb().task.findUniqueOrThrow({ where: { id } });
    expect(row.remoteRef).toBeNull();
    expect(logged()).toMatch(/unique|duplicate|constraint/i);
    expect((await getDb().task.findUniqueOrThrow({ where: { id: owner } })).status).toBe("queued");
  });

  it("any other failure after the handle exists is compensated, and the original error is kept even when compensation fails", async () => {
    const id = await newTask();
    cancelFails = true;
    // BigInt cannot be stored as JSON: the write after the remote call fails.
    nextHandle = () => ({
      remoteRef: `remote-${randomUUID()}`,
      driverData: { n: 1n } as unknown as Record<string, unknown>,
    });
    expect(await claimAndRun(id)).toBe("retry");
    expect(calls.cancel).toBe(1);
    const row = await getDb().task.findUniqueOrThrow({ where: { id } });
    // The original error is what the operator's log records for the task, not the compensation's.
    expect(taskLog(id)).toMatch(/BigInt/);
    expect(taskLog(id)).not.toMatch(/compensation failed/);
    expect(row.error).toBe(ERROR_CATEGORIES.internal);
    expect(row.consecutiveErrors).toBe(1);
  });
});
