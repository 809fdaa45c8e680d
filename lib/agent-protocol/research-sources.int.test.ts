import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import * as threadsRoute from "@/app/api/ap/threads/route";
import * as runsRoute from "@/app/api/ap/threads/[id]/runs/route";
import * as runRoute from "@/app/api/ap/threads/[id]/runs/[rid]/route";
import * as stateRoute from "@/app/api/ap/threads/[id]/state/route";
import { getDb } from "@/lib/db/client";
import { splitSources } from "@/lib/client/report-sources";
import { apiKeyFor, signUp, waitFor } from "@/tests/helpers";
import { researchFixture } from "@/tests/research-fixture";
import { serveRoutes } from "@/tests/route-server";

/**
 * Research started through the Agent Protocol (a supervisor's thread and run)
 * reads and cites like research started in the app: the thread state's last
 * message is the report, ending with its Sources list of the pages read.
 */

const { peer, worker } = researchFixture();
let server: Awaited<ReturnType<typeof serveRoutes>>;
let client: Client;

beforeAll(async () => {
  server = await serveRoutes([
    { path: "/api/ap/threads", methods: { POST: threadsRoute.POST } },
    { path: "/api/ap/threads/:id/runs", methods: { POST: runsRoute.POST, GET: runsRoute.GET } },
    { path: "/api/ap/threads/:id/runs/:rid", methods: { GET: runRoute.GET } },
    { path: "/api/ap/threads/:id/state", methods: { GET: stateRoute.GET } },
  ]);
  worker({ HERALD_RESEARCH_STEPS: "2", HERALD_RESEARCH_STEP_MS: "0" });
  const user = await signUp("ApSources");
  client = new Client({ apiUrl: `${server.url}/api/ap`, apiKey: (await apiKeyFor(user, "supervisor")).key });
});
afterAll(async () => {
  await server?.close();
});

describe("research through the Agent Protocol", () => {
  it("a run's report in the thread state ends with ## Sources listing the loopback pages it read", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "research", {
      input: { messages: [{ role: "user", content: "the otters of Lake Zorb" }] },
    });
    await waitFor(
      async () => (await client.runs.get(thread.thread_id, run.run_id)).status === "success",
      60_000,
      "run success",
    );

    const state = await client.threads.getState<{ messages: { type: string; content: string }[] }>(thread.thread_id);
    const report = state.values.messages.at(-1)!;
    expect(report.type).toBe("ai");
    expect(report.content).toMatch(/\n## Sources\n\n1\. \[/);
    const { sources, heading } = splitSources(report.content);
    expect(heading?.text).toBe("Sources");
    // The pages this run's task read and stored, each listed by its number and URL, all on the loopback peer.
    const apRun = await getDb().apRun.findUniqueOrThrow({ where: { id: run.run_id } });
    const stored = await getDb().taskSource.findMany({ where: { taskId: apRun.taskId }, orderBy: { n: "asc" } });
    expect(stored.length).toBeGreaterThan(0);
    expect(sources.map((s) => [s.n, s.url])).toEqual(stored.map((s) => [s.n, s.url]));
    for (const s of sources) expect(s.url.startsWith(`${peer().pageOrigin}/zorb/`), s.url).toBe(true);
    expect(sources.map((s) => s.url)).toContain(peer().urlOf("/zorb/history"));
  });
});
