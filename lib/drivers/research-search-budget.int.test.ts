import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { randomUUID } from "node:crypto";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { getDb } from "@/lib/db/client";
import { db } from "@/lib/db/kysely";
import { sql } from "kysely";
import { startTask } from "@/lib/tasks/start-task";
import { claimExecution } from "@/lib/tasks/sql";
import { executeTask } from "@/lib/runtime/execute-task";
import { toPublicTask } from "@/lib/contract/task";
import { createConversationFor, signUp, waitFor } from "@/tests/helpers";
import { peerEnv, startResearchPeer, type ResearchPeer } from "@/tests/research-peer";
import { RESEARCH_STEP_MARK } from "./research";

/**
 * A search counts against the task's budget when it is made, not when its
 * step commits: a section that searches and then fails (a crash, a model
 * error) has spent it, and the resumed section cannot search past
 * HERALD_RESEARCH_MAX_SEARCHES. This process is the worker.
 */

const failing = vi.hoisted(() => ({ sections: false }));
vi.mock("@/lib/agent/model", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@/lib/agent/model")>();
  return {
    ...actual,
    getModel: (): LanguageModelV3 => {
      const model = actual.getModel();
      return {
        ...model,
        doGenerate: (options) => {
          // After the step searched and read: the section's text request is where it dies.
          if (failing.sections && JSON.stringify(options.prompt).includes(RESEARCH_STEP_MARK))
            throw new Error("the worker died here");
          return model.doGenerate(options);
        },
        doStream: (options) => model.doStream(options),
      };
    },
  };
});

let peer: ResearchPeer;
beforeAll(async () => {
  peer = await startResearchPeer();
  for (const [k, v] of Object.entries({
    ...peerEnv(peer),
    HERALD_RESEARCH_MAX_SEARCHES: "1",
    HERALD_RESEARCH_MAX_SOURCES: "4",
  }))
    vi.stubEnv(k, v);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await peer?.close();
});

const row = (id: string) => getDb().task.findUniqueOrThrow({ where: { id } });

/** Claims the task (made due at once: a failed step waits out a backoff) and runs one unit of work. */
async function runOnce(id: string): Promise<string> {
  await db()
    .updateTable("task")
    .set({ nextRunAt: sql<Date>`now()` })
    .where("id", "=", id)
    .execute();
  const [claimed] = await waitFor(
    async () => {
      const got = await claimExecution("budget-test", 1, [id]);
      return got.length ? got : null;
    },
    10_000,
    "the task claimed",
  );
  return executeTask(claimed!, new AbortController().signal);
}

describe("the search budget across a failed step", () => {
  it("a search made by a step that then fails is counted, and the resumed step makes none past the budget", async () => {
    const user = await signUp("SearchBudget");
    const conversationId = await createConversationFor(user);
    const { task } = await startTask({
      ownerId: user.id,
      conversationId,
      title: "Lake Zorb otters",
      prompt: "the otters of Lake Zorb",
      clientRequestId: randomUUID(),
      options: { simulate: { steps: 1, stepMs: 0 } },
    });
    const searches = () => peer.hits.get("/search") ?? 0;
    const before = searches();

    // Submit, then plan.
    while ((await getDb().taskStep.count({ where: { taskId: task.id } })) === 0) await runOnce(task.id);

    failing.sections = true;
    expect(await runOnce(task.id)).toBe("retry");
    expect(searches() - before).toBe(1);
    expect(await getDb().taskStep.count({ where: { taskId: task.id } })).toBe(1);
    expect(toPublicTask(await row(task.id)).spent.searches).toBe(1);

    failing.sections = false;
    expect(await runOnce(task.id)).toBe("finished");
    expect(searches() - before).toBe(1);
    const done = await row(task.id);
    expect(done.status).toBe("succeeded");
    expect(toPublicTask(done).spent.searches).toBe(1);
  });
});
