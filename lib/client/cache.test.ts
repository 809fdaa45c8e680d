import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { patchTask, queryKeys, refreshAll, seenTasks } from "./cache";
import { mergeTaskSnapshot, type PublicTask } from "./tasks";
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

describe("an update that arrives while a list's first fetch is in flight", () => {
  it("is kept for the snapshot: the list shows it, not the older copy the server read first", () => {
    const qc = new QueryClient();
    // The sheet's list for c1 is loading (no data yet) when the feed says the task was cancelled.
    patchTask(qc, task("a", "c1", "cancelled", 5));
    expect(qc.getQueryData(queryKeys.taskList("c1"))).toBeUndefined();
    // The snapshot was read on the server before the cancel: what the list's query function stores.
    const stored = mergeTaskSnapshot(
      qc.getQueryData(queryKeys.taskList("c1")),
      [task("a", "c1", "queued", 1)],
      "c1",
      seenTasks(qc),
    );
    expect(stored.map((t) => [t.id, t.status])).toEqual([["a", "cancelled"]]);
    // A newer snapshot still wins, and another conversation's update stays out of this list.
    patchTask(qc, task("x", "c2", "running", 9));
    const later = mergeTaskSnapshot(undefined, [task("a", "c1", "cancelled", 7)], "c1", seenTasks(qc));
    expect(later.map((t) => [t.id, t.updatedAt])).toEqual([["a", task("a", "c1", "cancelled", 7).updatedAt]]);
  });

  it("is remembered per client and bounded", () => {
    const qc = new QueryClient();
    for (let i = 0; i < 250; i++) patchTask(qc, task(`t${i}`, "c1", "running", i));
    const seen = [...seenTasks(qc)].map((t) => t.id);
    expect(seen).toHaveLength(200);
    expect(seen[0]).toBe("t50");
    expect([...seenTasks(new QueryClient())]).toEqual([]);
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
