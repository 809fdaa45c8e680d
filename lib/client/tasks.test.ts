import { describe, expect, it } from "vitest";
import {
  ACTIVE_POLL_MS,
  IDLE_POLL_MS,
  applyTaskToDetail,
  applyTaskUpdate,
  countActive,
  isCancelling,
  mergeTaskSnapshot,
  splitTasks,
  statusChanges,
  taskRefetchInterval,
  type PublicTask,
} from "./tasks";
import { taskFixture } from "./task-fixture";

const task = taskFixture;

const ids = (list: readonly PublicTask[] | undefined) => list?.map((t) => t.id);

describe("taskRefetchInterval", () => {
  it("polls every 3 s while any task is active", () => {
    for (const status of ["submitted", "queued", "running", "updating", "input_required"] as const) {
      expect(taskRefetchInterval([task("a", "succeeded", 1), task("b", status, 0)])).toBe(ACTIVE_POLL_MS);
    }
    expect(ACTIVE_POLL_MS).toBe(3000);
  });

  it("polls every 15 s when nothing is active, empty or not loaded", () => {
    expect(taskRefetchInterval([task("a", "succeeded", 1), task("b", "failed", 0), task("c", "cancelled", 0)])).toBe(
      IDLE_POLL_MS,
    );
    expect(taskRefetchInterval([])).toBe(IDLE_POLL_MS);
    expect(taskRefetchInterval(undefined)).toBe(IDLE_POLL_MS);
    expect(IDLE_POLL_MS).toBe(15_000);
  });
});

describe("applyTaskUpdate", () => {
  it("leaves an unloaded list alone", () => {
    expect(applyTaskUpdate(undefined, task("a", "running", 1), null)).toBeUndefined();
  });

  it("inserts a new task in updatedAt-desc order", () => {
    const list = [task("b", "running", 5), task("a", "running", 1)];
    expect(ids(applyTaskUpdate(list, task("c", "queued", 3), null))).toEqual(["b", "c", "a"]);
    expect(ids(applyTaskUpdate(list, task("d", "queued", 9), null))).toEqual(["d", "b", "a"]);
  });

  it("replaces by id and moves the task to the top when it changed", () => {
    const list = [task("b", "running", 5), task("a", "running", 1)];
    const next = applyTaskUpdate(list, task("a", "succeeded", 7), null);
    expect(ids(next)).toEqual(["a", "b"]);
    expect(next?.[0].status).toBe("succeeded");
    expect(next).toHaveLength(2);
  });

  it("moves a finished task from active to recent", () => {
    const list = [task("b", "running", 5), task("a", "running", 1)];
    const next = applyTaskUpdate(list, task("b", "cancelled", 6), null)!;
    const { active, recent } = splitTasks(next);
    expect(ids(active)).toEqual(["a"]);
    expect(ids(recent)).toEqual(["b"]);
  });

  it("a same-timestamp copy with different content replaces ours (feed order is commit order)", () => {
    const list = [task("a", "succeeded", 5)];
    const delivered = { ...list[0], notification: { ...list[0].notification, status: "delivered" } };
    const next = applyTaskUpdate(list, delivered, null)!;
    expect(next).not.toBe(list);
    expect(next[0].notification.status).toBe("delivered");
  });

  it("ignores older and duplicate copies (same array back)", () => {
    const list = [task("a", "succeeded", 5)];
    expect(applyTaskUpdate(list, task("a", "running", 4), null)).toBe(list);
    expect(applyTaskUpdate(list, task("a", "succeeded", 5), null)).toBe(list);
  });

  it("keeps other conversations' tasks out of a conversation's list", () => {
    const list = [task("a", "running", 1)];
    const foreign = task("x", "running", 9, { conversationId: "c2" });
    expect(applyTaskUpdate(list, foreign, "c1")).toBe(list);
    expect(ids(applyTaskUpdate(list, foreign, null))).toEqual(["x", "a"]);
  });

  it("breaks updatedAt ties by id descending, like the server", () => {
    const list = [task("a", "running", 1)];
    expect(ids(applyTaskUpdate(list, task("b", "running", 1), null))).toEqual(["b", "a"]);
  });
});

describe("mergeTaskSnapshot", () => {
  it("takes the snapshot when the cache is empty", () => {
    const fetched = [task("b", "running", 2), task("a", "queued", 1)];
    expect(ids(mergeTaskSnapshot(undefined, fetched, null))).toEqual(["b", "a"]);
  });

  it("keeps a newer copy the feed delivered while the poll was in flight", () => {
    const cached = [task("a", "succeeded", 9)];
    const fetched = [task("a", "running", 4)];
    const merged = mergeTaskSnapshot(cached, fetched, null);
    expect(merged[0].status).toBe("succeeded");
  });

  it("lets the snapshot win when it is newer", () => {
    const cached = [task("a", "running", 4)];
    const merged = mergeTaskSnapshot(cached, [task("a", "succeeded", 9)], null);
    expect(merged[0].status).toBe("succeeded");
  });

  it("keeps tasks the snapshot could not have seen yet, drops older ones it no longer lists", () => {
    const cached = [task("new", "queued", 20), task("gone", "running", 1)];
    const fetched = [task("b", "running", 10)];
    expect(ids(mergeTaskSnapshot(cached, fetched, null))).toEqual(["new", "b"]);
  });

  it("returns the cached array when nothing changed, so an idle poll renders nothing", () => {
    const cached = [task("b", "running", 2), task("a", "queued", 1)];
    const fetched = [task("b", "running", 2), task("a", "queued", 1)];
    expect(mergeTaskSnapshot(cached, fetched, null)).toBe(cached);
  });

  it("dedupes and filters by scope", () => {
    const fetched = [
      task("a", "running", 2),
      task("a", "running", 2),
      task("x", "running", 3, { conversationId: "c2" }),
    ];
    expect(ids(mergeTaskSnapshot(undefined, fetched, "c1"))).toEqual(["a"]);
  });
});

describe("statusChanges", () => {
  it("records first sightings silently and reports each change once", () => {
    const first = statusChanges(new Map(), [task("a", "running", 1)]);
    expect(first.changed).toEqual([]);

    const same = statusChanges(first.known, [task("a", "running", 2)]);
    expect(same.changed).toEqual([]);

    const done = statusChanges(same.known, [task("a", "succeeded", 3)]);
    expect(ids(done.changed)).toEqual(["a"]);

    const again = statusChanges(done.known, [task("a", "succeeded", 3)]);
    expect(again.changed).toEqual([]);
  });

  it("reports several changes oldest first", () => {
    const { known } = statusChanges(new Map(), [task("b", "running", 2), task("a", "running", 1)]);
    const { changed } = statusChanges(known, [task("a", "failed", 9), task("b", "succeeded", 8)]);
    expect(ids(changed)).toEqual(["b", "a"]);
  });
});

describe("cancel and detail helpers", () => {
  it("shows Cancelling… from the click (pending) or the server flag, until terminal", () => {
    expect(isCancelling(task("a", "running", 1), true)).toBe(true);
    expect(isCancelling(task("a", "running", 1, { cancelRequested: true }), false)).toBe(true);
    expect(isCancelling(task("a", "running", 1), false)).toBe(false);
    expect(isCancelling(task("a", "cancelled", 1, { cancelRequested: true }), true)).toBe(false);
  });

  it("merges newer public fields into a cached detail only", () => {
    const detail = { ...task("a", "running", 1), publications: [1] };
    const merged = applyTaskToDetail(detail, task("a", "succeeded", 2));
    expect(merged?.status).toBe("succeeded");
    expect(merged?.publications).toEqual([1]);
    expect(applyTaskToDetail(detail, task("a", "queued", 0))).toBe(detail);
    expect(applyTaskToDetail(undefined, task("a", "queued", 5))).toBeUndefined();
  });

  it("counts active tasks", () => {
    expect(countActive([task("a", "running", 1), task("b", "succeeded", 1), task("c", "input_required", 1)])).toBe(2);
    expect(countActive(undefined)).toBe(0);
  });
});
