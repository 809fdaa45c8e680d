import { beforeEach, describe, expect, it } from "vitest";
import type { LoopSpec } from "@/lib/fleet/loop";
import { logContext } from "@/lib/util/log";
import { processSnapshot, resetProcessMetrics, setProcessLabel } from "@/lib/metrics/process";
import { instrumentLoop, rowIds } from "./instrument";

const stopping = new AbortController().signal;

/** A sample by its series name (a histogram's are `<name>_bucket`, `_sum`, `_count`) and labels. */
async function value(name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  for (const m of await processSnapshot()) {
    for (const v of m.values as { value: number; labels: Record<string, string | number>; metricName?: string }[]) {
      if ((v.metricName ?? m.name) === name && Object.entries(labels).every(([k, x]) => String(v.labels[k]) === x))
        return v.value;
    }
  }
  return undefined;
}

function spec<R>(name: string, rows: R[], work: (row: R) => Promise<unknown>): LoopSpec<R> {
  return { name, concurrency: 4, pollMs: 1000, claim: async () => rows, work };
}

beforeEach(() => {
  resetProcessMetrics();
  setProcessLabel("test-worker");
});

describe("instrumentLoop", () => {
  it("counts an email loop's sends and failures by the transition its work returns", async () => {
    const loop = instrumentLoop(
      spec("email", [], async (t: string) => t),
      "w1",
    );
    for (const t of ["E7", "E7", "E8", "E9", "E5"]) await loop.work(t, stopping);
    expect(await value("herald_emails_sent_total")).toBe(2);
    expect(await value("herald_emails_failed_total", { outcome: "retry" })).toBe(1);
    expect(await value("herald_emails_failed_total", { outcome: "dead_letter" })).toBe(1);
    expect(await value("herald_emails_sent_total", { process: "test-worker" })).toBe(2);
  });

  it("counts a run claimed after its lease expired as a recovery, and a first claim's wait", async () => {
    const created = new Date("2026-01-01T00:00:00Z");
    const rows = [
      { id: "r1", attempts: 1, createdAt: created, startedAt: new Date(created.getTime() + 250) },
      { id: "r2", attempts: 2, createdAt: created, startedAt: created },
    ];
    const loop = instrumentLoop(
      spec("runs", rows, async () => null),
      "w1",
    );
    expect(await loop.claim(4)).toHaveLength(2);
    expect(await value("herald_loop_claimed_total", { loop: "runs" })).toBe(2);
    expect(await value("herald_lease_recoveries_total", { loop: "runs" })).toBe(1);
    expect(await value("herald_queue_wait_seconds_sum", { loop: "runs" })).toBeCloseTo(0.25);
    expect(await value("herald_start_delay_seconds_count", { kind: "run" })).toBe(1);
  });

  it("reads a task step's wait from nextRunAt and a new task's start delay from createdAt", async () => {
    const now = Date.now();
    const rows = [
      {
        id: "t1",
        status: "submitted",
        attempts: 1,
        createdAt: new Date(now - 90_000),
        nextRunAt: new Date(now - 90_000),
      },
    ];
    const loop = instrumentLoop(
      spec("tasks", rows, async () => null),
      "w1",
    );
    await loop.claim(4);
    expect(await value("herald_queue_wait_seconds_bucket", { loop: "tasks", le: "60" })).toBe(0);
    expect(await value("herald_queue_wait_seconds_bucket", { loop: "tasks", le: "300" })).toBe(1);
    expect(await value("herald_start_delay_seconds_count", { kind: "task" })).toBe(1);
  });

  it("runs work inside a log context with the row's ids, and counts failures and busy time", async () => {
    let seen = {};
    const row = { id: "t9", ownerId: "acc", conversationId: "conv" };
    const loop = instrumentLoop(
      spec("tasks", [row], async () => {
        seen = logContext();
        throw new Error("boom");
      }),
      "w1",
    );
    await expect(loop.work(row, stopping)).rejects.toThrow("boom");
    expect(seen).toMatchObject({
      taskId: "t9",
      accountId: "acc",
      conversationId: "conv",
      workerId: "w1",
      loop: "tasks",
    });
    expect(await value("herald_loop_work_failures_total", { loop: "tasks" })).toBe(1);
    expect(await value("herald_loop_busy", { loop: "tasks" })).toBe(0);
    expect(await value("herald_loop_slots", { loop: "tasks" })).toBe(4);
  });

  it("counts a failed claim and passes the error on", async () => {
    const loop = instrumentLoop(
      { ...spec("notify", [], async () => null), claim: async () => Promise.reject(new Error("db down")) },
      "w1",
    );
    await expect(loop.claim(1)).rejects.toThrow("db down");
    expect(await value("herald_loop_claim_failures_total", { loop: "notify" })).toBe(1);
  });
});

describe("rowIds", () => {
  it("names each loop's row by what it is", () => {
    expect(rowIds("runs", { id: "r", ownerId: "a", conversationId: "c", taskId: "t" })).toEqual({
      runId: "r",
      accountId: "a",
      conversationId: "c",
      taskId: "t",
    });
    expect(rowIds("email", { id: "n", token: "secret" })).toEqual({ noticeId: "n" });
    expect(rowIds("due", "t1")).toEqual({ taskId: "t1" });
    expect(rowIds("notify", { id: "t2", token: "x", dispatchVersion: 1 })).toEqual({ taskId: "t2" });
  });
});
