import { describe, expect, it, vi } from "vitest";
import { randomUUID } from "node:crypto";
import { APICallError } from "ai";
import { getDb } from "@/lib/db/client";
import { registerDriver } from "@/lib/drivers/registry";
import type { Driver } from "@/lib/drivers/types";
import { startTask } from "@/lib/tasks/start-task";
import { claimExecution } from "@/lib/tasks/sql";
import { executeTask } from "@/lib/runtime/execute-task";
import * as taskRoute from "@/app/api/tasks/[id]/route";
import { call, createConversationFor, signUp } from "@/tests/helpers";
import { ERROR_CATEGORIES } from "./categories";

// What a driver, an SDK or the database might say: none of it may reach a user.
const SECRET = "connect ECONNREFUSED 10.1.2.3:5432 postgres://herald:hunter2@db.internal/herald SELECT * FROM \"task\"";

let failure: () => Error | string = () => Object.assign(new Error(SECRET), { code: "ECONNREFUSED" });
let remoteSays: string | null = null;
const leaky: Driver = {
  maxConsecutiveErrors: 1,
  async submit() {
    return { remoteRef: `leaky-${randomUUID()}` };
  },
  async step() {
    if (remoteSays !== null) return { status: "failed", error: remoteSays };
    throw failure();
  },
  async cancel() {
    return { status: "cancelled" };
  },
};
registerDriver("leaky", leaky);

async function runToEnd() {
  const u = await signUp("Leak");
  const conv = await createConversationFor(u);
  const { task } = await startTask({ ownerId: u.id, conversationId: conv, title: "t", prompt: "p", driver: "leaky", clientRequestId: randomUUID() });
  for (let i = 0; i < 3; i++) {
    const [row] = await claimExecution("leak-test", 1, [task.id]);
    if (!row) break;
    await executeTask(row, new AbortController().signal);
  }
  return { u, conv, id: task.id };
}

async function everythingVisible(u: Awaited<ReturnType<typeof signUp>>, conv: string, id: string) {
  const detail = await call(taskRoute.GET, { user: u, params: { id } });
  const messages = await getDb().message.findMany({ where: { conversationId: conv } });
  const events = await getDb().event.findMany({ where: { ownerId: u.id } });
  return JSON.stringify([detail.json, messages, events.map((e) => e.payload)]);
}

describe("errors leak nothing", () => {
  it("a driver's raw error (hosts, ports, SQL, credentials) stays in the log; users see the category", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const { u, conv, id } = await runToEnd();
      const task = await getDb().task.findUniqueOrThrow({ where: { id } });
      expect(task.status).toBe("failed");
      expect(task.error).toBe(ERROR_CATEGORIES.unreachable);
      const visible = await everythingVisible(u, conv, id);
      for (const s of ["10.1.2.3", "5432", "hunter2", "db.internal", "SELECT", "ECONNREFUSED"]) expect(visible).not.toContain(s);
      const detail = await call(taskRoute.GET, { user: u, params: { id } });
      expect(detail.json.task.errorCode).toBe("unreachable");
      // The operator still has the whole story.
      expect(logged.mock.calls.flat().map(String).join(" ")).toContain("10.1.2.3");
    } finally {
      logged.mockRestore();
    }
  });

  it("a remote's failure text and an SDK's response body are replaced by their category", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      remoteSays = "Traceback: /srv/agent/secret_config.py line 12, token=sk-live-123";
      const remote = await runToEnd();
      expect((await getDb().task.findUniqueOrThrow({ where: { id: remote.id } })).error).toBe(ERROR_CATEGORIES.remote_failed);
      expect(await everythingVisible(remote.u, remote.conv, remote.id)).not.toContain("sk-live-123");

      remoteSays = null;
      failure = () =>
        new APICallError({
          message: "Too many requests for org-secret",
          url: "https://llm.internal:8443/v1/chat/completions",
          requestBodyValues: {},
          statusCode: 429,
          responseBody: '{"error":"org-secret over quota"}',
        });
      const sdk = await runToEnd();
      const row = await getDb().task.findUniqueOrThrow({ where: { id: sdk.id } });
      expect(row.error).toBe(ERROR_CATEGORIES.model_rate_limited);
      const visible = await everythingVisible(sdk.u, sdk.conv, sdk.id);
      expect(visible).not.toContain("org-secret");
      expect(visible).not.toContain("llm.internal");
    } finally {
      logged.mockRestore();
      remoteSays = null;
      failure = () => Object.assign(new Error(SECRET), { code: "ECONNREFUSED" });
    }
  });
});
