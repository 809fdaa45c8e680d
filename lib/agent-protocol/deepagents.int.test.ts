import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { MemorySaver } from "@langchain/langgraph";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { createDeepAgent } from "deepagents";
import * as threadsRoute from "@/app/api/ap/threads/route";
import * as runsRoute from "@/app/api/ap/threads/[id]/runs/route";
import * as runRoute from "@/app/api/ap/threads/[id]/runs/[rid]/route";
import * as cancelRoute from "@/app/api/ap/threads/[id]/runs/[rid]/cancel/route";
import * as stateRoute from "@/app/api/ap/threads/[id]/state/route";
import { getDb } from "@/lib/db/client";
import {
  apiKeyFor,
  signUp,
  startWorkerProcess,
  stopWorkers,
  waitFor,
  waitForBeat,
  type WorkerProc,
} from "@/tests/helpers";
import { serveRoutes } from "@/tests/route-server";

/**
 * A deepagents supervisor (createDeepAgent with an async subagent, so its
 * AsyncSubAgent middleware and that middleware's own SDK calls) delegating to
 * Herald: start, list, check, update, cancel. The model is scripted: each turn
 * the test says which tool call the supervisor makes next, so nothing leaves
 * the machine.
 */

interface Call {
  name: string;
  args: Record<string, unknown>;
}

/** Makes the next queued tool call, then answers in words once the tool has answered. */
class ScriptedModel extends BaseChatModel {
  queue: Call[] = [];
  private n = 0;

  _llmType(): string {
    return "scripted";
  }

  // The agent binds its tools; the script already knows which one it calls.
  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const last = messages.at(-1);
    const next = last instanceof ToolMessage ? undefined : this.queue.shift();
    const message = next
      ? new AIMessage({
          content: "",
          tool_calls: [{ id: `call_${++this.n}`, name: next.name, args: next.args, type: "tool_call" }],
        })
      : new AIMessage({ content: "Done." });
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }
}

interface AsyncTask {
  taskId: string;
  threadId: string;
  runId: string;
  status: string;
}

let server: Awaited<ReturnType<typeof serveRoutes>>;
let worker: WorkerProc;
let herald: Client;
let model: ScriptedModel;
let supervisor: ReturnType<typeof createDeepAgent>;
const config = { configurable: { thread_id: "supervisor-1" } };

/** One supervisor turn making one tool call; returns what the tool answered and the tracked tasks. */
async function turn(call: Call): Promise<{ reply: string; tasks: Record<string, AsyncTask> }> {
  model.queue.push(call);
  const state = (await supervisor.invoke(
    { messages: [{ role: "user", content: `please ${call.name}` }] },
    config,
  )) as unknown as {
    messages: BaseMessage[];
    asyncTasks?: Record<string, AsyncTask>;
  };
  const tool = [...state.messages].reverse().find((m) => m instanceof ToolMessage);
  return { reply: String(tool?.content ?? ""), tasks: state.asyncTasks ?? {} };
}

beforeAll(async () => {
  server = await serveRoutes([
    { path: "/api/ap/threads", methods: { POST: threadsRoute.POST } },
    { path: "/api/ap/threads/:id/runs", methods: { POST: runsRoute.POST } },
    { path: "/api/ap/threads/:id/runs/:rid", methods: { GET: runRoute.GET } },
    { path: "/api/ap/threads/:id/runs/:rid/cancel", methods: { POST: cancelRoute.POST } },
    { path: "/api/ap/threads/:id/state", methods: { GET: stateRoute.GET } },
  ]);
  // Paced: the second task is still working when it is updated and cancelled. No web search: nothing leaves the machine.
  worker = startWorkerProcess({
    HERALD_RESEARCH_STEPS: "3",
    HERALD_RESEARCH_STEP_MS: "1500",
    HERALD_SEARCH_PROVIDER: "none",
  });
  const key = (await apiKeyFor(await signUp("ApDeepagents"))).key;
  await waitForBeat(worker);
  herald = new Client({ apiUrl: `${server.url}/api/ap`, apiKey: key });
  model = new ScriptedModel({});
  supervisor = createDeepAgent({
    model,
    checkpointer: new MemorySaver(),
    subagents: [
      {
        name: "herald",
        description: "Durable web research with a cited report",
        graphId: "research",
        url: `${server.url}/api/ap`,
        headers: { "x-api-key": key },
      },
    ],
  });
});
afterAll(async () => {
  await stopWorkers(worker);
  await server?.close();
});

describe("a deepagents supervisor delegating to Herald through its AsyncSubAgent middleware", () => {
  it("start, list, check, update, cancel", async () => {
    const a = await turn({
      name: "start_async_task",
      args: { agentName: "herald", description: "research bog bodies" },
    });
    const taskA = /taskId: (\S+)/.exec(a.reply)?.[1];
    expect(taskA, a.reply).toBeTruthy();
    expect(a.tasks[taskA!]).toMatchObject({ threadId: taskA, status: "running" });
    const runA = a.tasks[taskA!].runId;
    expect(["pending", "running"]).toContain((await herald.runs.get(taskA!, runA)).status);
    // Herald's own record of it: a task working on the description.
    const rowA = await getDb().apRun.findUniqueOrThrow({ where: { id: runA } });
    expect(rowA.input).toBe("research bog bodies");

    const b = await turn({
      name: "start_async_task",
      args: { agentName: "herald", description: "research ice cores" },
    });
    const taskB = /taskId: (\S+)/.exec(b.reply)![1];
    expect(taskB).not.toBe(taskA);

    const listed = await turn({ name: "list_async_tasks", args: {} });
    expect(listed.reply).toMatch(/^2 tracked task\(s\):/);
    expect(listed.reply).toContain(`taskId: ${taskA} agent: herald status: `);
    expect(listed.reply).toContain(`taskId: ${taskB} agent: herald status: `);

    // An update is a new run on the same thread that interrupts the one working: sent while B works (B was started
    // a moment ago; waiting for A first let B finish too on a loaded machine, and the update then met a finished task).
    const runB1 = b.tasks[taskB].runId;
    const updated = await turn({
      name: "update_async_task",
      args: { taskId: taskB, message: "only the last millennium" },
    });
    expect(updated.reply).toBe(`Updated async subagent. taskId: ${taskB}`);
    const runB2 = updated.tasks[taskB].runId;
    expect(runB2).not.toBe(runB1);
    expect(["pending", "running"]).toContain((await herald.runs.get(taskB, runB2)).status);

    const cancelled = await turn({ name: "cancel_async_task", args: { taskId: taskB } });
    expect(cancelled.reply).toBe(`Cancelled async subagent task: ${taskB}`);
    expect(cancelled.tasks[taskB].status).toBe("cancelled");
    await waitFor(
      async () => (await herald.runs.get(taskB, runB2)).status === "interrupted",
      30_000,
      "task B interrupted",
    );

    await waitFor(async () => (await herald.runs.get(taskA!, runA)).status === "success", 60_000, "task A done");
    const checked = await turn({ name: "check_async_task", args: { taskId: taskA } });
    const result = JSON.parse(checked.reply) as { status: string; threadId: string; result?: string };
    expect(result).toMatchObject({ status: "success", threadId: taskA });
    expect(result.result).toMatch(/^# .*bog bodies/i);
    expect(checked.tasks[taskA!].status).toBe("success");

    const done = await turn({ name: "list_async_tasks", args: {} });
    expect(done.reply).toContain(`taskId: ${taskA} agent: herald status: success`);
    expect(done.reply).toContain(`taskId: ${taskB} agent: herald status: cancelled`);
    // Herald's own record: the follow-up went into task B's thread after its first question.
    const state = await herald.threads.getState<{ messages: { type: string; content: string }[] }>(taskB);
    expect(state.values.messages.filter((m) => m.type === "human").map((m) => m.content)).toEqual([
      "research ice cores",
      "only the last millennium",
    ]);
  });
});
