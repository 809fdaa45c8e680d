import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { patchTask, queryKeys, refreshAll } from "./cache";
import type { PublicTask } from "./tasks";
import { taskFixture } from "./task-fixture";

function task(id: string, conversationId: string, status: PublicTask["status"], second: number): PublicTask {
  return taskFixture(id, status, second, { conversationId, title: id });
}

describe("patchTask (feed task.updated → caches)", () => {
  it("patches every loaded list in scope, leaves unloaded ones alone", () => {
    const qc = new QueryClient();
    qc.setQueryData(queryKeys.taskList(null), [task("a", "c1", "running", 1)]);
    qc.setQueryData(queryKeys.taskList("c1"), [task("a", "c1", "running", 1)]);
    qc.setQueryData(queryKeys.taskList("c2"), []);

    patchTask(qc, task("a", "c1", "succeeded", 2));
    patchTask(qc, task("b", "c1", "queued", 3));

    expect(qc.getQueryData<PublicTask[]>(queryKeys.taskList(null))?.map((t) => [t.id, t.status])).toEqual([
      ["b", "queued"],
      ["a", "succeeded"],
    ]);
    expect(qc.getQueryData<PublicTask[]>(queryKeys.taskList("c1"))?.map((t) => t.id)).toEqual(["b", "a"]);
    expect(qc.getQueryData<PublicTask[]>(queryKeys.taskList("c2"))).toEqual([]);
    expect(qc.getQueryData(queryKeys.taskList("c3"))).toBeUndefined();
  });

  it("merges into a cached detail and says so only when the detail was older", () => {
    const qc = new QueryClient();
    qc.setQueryData(queryKeys.taskDetail("a"), { ...task("a", "c1", "running", 1), publications: [], notices: [] });
    expect(patchTask(qc, task("a", "c1", "succeeded", 2))).toBe(true);
    expect(qc.getQueryData<PublicTask>(queryKeys.taskDetail("a"))?.status).toBe("succeeded");
    expect(patchTask(qc, task("a", "c1", "succeeded", 2))).toBe(false);
    expect(patchTask(qc, task("z", "c1", "running", 9))).toBe(false);
  });
});

describe("refreshAll (a cursorless feed opened)", () => {
  it("fetches again a query that was still on its first fetch when the feed opened", async () => {
    const qc = new QueryClient();
    let calls = 0;
    let release: () => void = () => {};
    const observer = qc.getQueryCache().build(qc, {
      queryKey: ["messages", "c1"],
      queryFn: async () => {
        calls += 1;
        // The first fetch reads the server before the event the feed will not replay.
        if (calls === 1) await new Promise<void>((r) => (release = r));
        return calls;
      },
    });
    const first = observer.fetch();
    const refreshed = refreshAll(qc);
    release();
    await first;
    await refreshed;
    expect(calls).toBe(2);
    expect(qc.getQueryData(["messages", "c1"])).toBe(2);
  });
});
