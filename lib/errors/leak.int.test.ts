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
import * as workChoicesRoute from "@/app/api/work-choices/route";
import * as messagesRoute from "@/app/api/conversations/[id]/messages/route";
import { driverForWorkChoice } from "@/lib/drivers/choices";
import { call, createConversationFor, signUp } from "@/tests/helpers";
import { ERROR_CATEGORIES } from "./categories";

// What a driver, an SDK or the database might say: none of it may reach a user.
const SECRET = 'connect ECONNREFUSED 10.1.2.3:5432 postgres://herald:hunter2@db.internal/herald SELECT * FROM "task"';

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
  const { task } = await startTask({
    ownerId: u.id,
    conversationId: conv,
    title: "t",
    prompt: "p",
    driver: "leaky",
    clientRequestId: randomUUID(),
  });
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
      // The port as the error wrote it (":5432"): a bare "5432" turns up inside random UUIDs now and then.
      for (const s of ["10.1.2.3", ":5432", "hunter2", "db.internal", "SELECT", "ECONNREFUSED"])
        expect(visible).not.toContain(s);
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
      expect((await getDb().task.findUniqueOrThrow({ where: { id: remote.id } })).error).toBe(
        ERROR_CATEGORIES.remote_failed,
      );
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

describe("the composer's Work with picker leaks nothing", () => {
  it("GET /api/work-choices: opaque ids and operator labels only; a message names its pick by id, an unknown id is a 400 naming workWith", async () => {
    const agentSecret = `agent-key-${randomUUID()}`;
    const mcpSecret = `mcp-token-${randomUUID()}`;
    process.env.HERALD_LEAK_AGENT_KEY = agentSecret;
    process.env.HERALD_REMOTE_AGENTS = JSON.stringify([
      {
        name: "patents-internal",
        label: "Patent search",
        description: "Patent landscape agent: prior art",
        url: "http://agents.internal.example:8123",
        assistantId: "graph-7f3a",
        headersFromEnv: { "x-api-key": "HERALD_LEAK_AGENT_KEY" },
      },
      {
        name: "unlabelled",
        description: "Not offered in the picker",
        url: "http://hidden.internal.example:1",
        assistantId: "g",
      },
    ]);
    process.env.HERALD_MCP_SERVERS = JSON.stringify([
      {
        name: "mcp-internal",
        label: "Market data",
        url: "http://mcp.internal.example:9000/mcp",
        tool: "research_tool_x",
        headers: { authorization: `Bearer ${mcpSecret}` },
      },
    ]);
    try {
      const u = await signUp("Picker");
      const r = await call(workChoicesRoute.GET, { user: u });
      expect(r.status).toBe(200);
      const choices = r.json.choices as { id: string; label: string | null }[];
      expect(choices.map((c) => c.label)).toEqual([null, "Patent search", "Market data"]);
      expect(choices[0].id).toBe("research");
      const text = JSON.stringify(r.json);
      for (const s of [
        "patents-internal",
        "unlabelled",
        "mcp-internal",
        "agents.internal",
        "hidden.internal",
        "mcp.internal",
        "graph-7f3a",
        "research_tool_x",
        "prior art",
        "agent:",
        "mcp:",
        agentSecret,
        mcpSecret,
      ]) {
        expect(text.includes(s), `work choices leak ${s}`).toBe(false);
      }
      expect(driverForWorkChoice(choices[1].id)).toBe("agent:patents-internal");
      expect(driverForWorkChoice(choices[2].id)).toBe("mcp:mcp-internal");

      const conv = await createConversationFor(u);
      const bad = await call(messagesRoute.POST, {
        user: u,
        params: { id: conv },
        body: { content: "hello", clientMessageId: randomUUID(), workWith: "agent:patents-internal" },
      });
      expect(bad.status).toBe(400);
      expect(bad.json.error.field).toBe("workWith");
      const ok = await call(messagesRoute.POST, {
        user: u,
        params: { id: conv },
        body: { content: "research patents", clientMessageId: randomUUID(), workWith: choices[1].id },
      });
      expect(ok.status).toBe(202);
      const stored = await getDb().message.findUniqueOrThrow({ where: { id: ok.json.message.id } });
      expect(stored.meta).toMatchObject({ workWith: choices[1].id });
      const visible = JSON.stringify([
        ok.json,
        (await call(messagesRoute.GET, { user: u, params: { id: conv } })).json,
      ]);
      expect(visible).not.toContain("patents-internal");
    } finally {
      delete process.env.HERALD_REMOTE_AGENTS;
      delete process.env.HERALD_MCP_SERVERS;
      delete process.env.HERALD_LEAK_AGENT_KEY;
    }
  });
});
