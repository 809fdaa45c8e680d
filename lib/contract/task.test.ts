import { describe, expect, it } from "vitest";
import type { Task } from "@/lib/db/generated/client.ts";
import { toPublicTask } from "./task";

const base = {
  id: "t1",
  conversationId: "c1",
  title: "T",
  driver: "research",
  status: "running",
  createdAt: new Date(0),
  updatedAt: new Date(0),
  startedAt: null,
  completedAt: null,
  progressText: null,
  progressAt: null,
  deliveryMode: "none",
  dueAt: null,
  reportIfUnfinished: false,
  deliveryOutcome: null,
  allowOvertime: true,
  budget: null,
  modelRequests: 0,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: null,
  providerWaitSince: null,
  cancelRequestedAt: null,
  cancelAttempts: 0,
  lastCancelError: null,
  notificationStatus: "none",
  notificationAttempts: 0,
  notificationError: null,
  error: null,
  inputRequest: null,
  latestPublicationId: null,
  driverData: null,
} as unknown as Task;

describe("task.remote (the sheet's remote timing)", () => {
  it("is null for native research", () => {
    expect(toPublicTask(base).remote).toBeNull();
  });

  it("carries only the remote's run limit and the poll interval, in seconds, never the driver's other data", () => {
    const t = {
      ...base,
      driver: "mcp:internal-name",
      driverData: {
        server: "internal-name",
        session: "sess-secret",
        question: { requestId: 7 },
        remoteTtlMs: 3_600_000,
        pollMs: 2_500,
      },
    } as unknown as Task;
    const pub = toPublicTask(t);
    expect(pub.remote).toEqual({ runTimeoutSeconds: 3600, pollIntervalSeconds: 2.5 });
    expect(JSON.stringify(pub)).not.toMatch(/sess-secret|internal-name|requestId/);
  });

  it("says 'not stated' (null) for missing or nonsense numbers", () => {
    const t = { ...base, driver: "agent:x", driverData: { pollMs: -1, remoteTtlMs: "soon" } } as unknown as Task;
    expect(toPublicTask(t).remote).toEqual({ runTimeoutSeconds: null, pollIntervalSeconds: null });
  });
});
