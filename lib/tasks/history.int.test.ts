import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { transaction } from "@/lib/db/kysely";
import { transactionWithEvents } from "@/lib/events/emit";
import * as historyRoute from "@/app/api/tasks/[id]/history/route";
import * as tasksRoute from "@/app/api/tasks/route";
import {
  call,
  createConversationFor,
  signUp,
  startWorkerProcess,
  stopWorkers,
  waitFor,
  type TestUser,
  type WorkerProc,
} from "@/tests/helpers";
import type { PublicHistoryItem } from "@/lib/contract/history";
import { emitTaskUpdated } from "./emit-task";
import { fenceCancel } from "./request-cancel";
import { claimCancels } from "./cancel-sql";
import { executeCancel } from "@/lib/runtime/execute-cancel";
import { terminal } from "@/lib/runtime/execute-task";
import { claimNotifications, notifyOne } from "@/lib/notify/deliver";

// The cancel and notification claims below are driven by hand and pick any due row: this file's database is its
// own (tests/file-db.ts), so no other file's rows or workers are there.
const started: WorkerProc[] = [];

beforeAll(() => {
  process.env.HERALD_NOTIFY_INTERVAL_MS = "50";
  process.env.HERALD_NOTIFY_MAX_BACKOFF_MS = "200";
});

afterAll(async () => {
  await stopWorkers(...started);
});

async function history(user: TestUser, id: string, query = "") {
  return call(historyRoute.GET, { user, path: `/api/tasks/${id}/history${query}`, params: { id } });
}

async function allPages(user: TestUser, id: string, limit: number): Promise<PublicHistoryItem[]> {
  const items: PublicHistoryItem[] = [];
  let after: string | null = null;
  for (let i = 0; i < 200; i++) {
    const r = await history(user, id, `?limit=${limit}${after ? `&after=${after}` : ""}`);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.items.length).toBeLessThanOrEqual(limit);
    items.push(...r.json.items);
    after = r.json.nextCursor;
    if (after === null) return items;
  }
  throw new Error("history did not end");
}

const notifyClaim = (taskId: string) =>
  waitFor(
    async () => {
      const rows = await claimNotifications("history-test", 4, { onlyTaskIds: [taskId] });
      return rows.length ? rows[0] : null;
    },
    10_000,
    "notification claim",
  );

describe("GET /api/tasks/:id/history", () => {
  afterEach(() => stopWorkers(...started.splice(0)));

  it("a research task's timeline in order; pages of any size join without gaps or repeats; owner-only", async () => {
    const u = await signUp("History");
    const conv = await createConversationFor(u);
    started.push(startWorkerProcess({ HERALD_RESEARCH_STEP_MS: "0", HERALD_NOTIFY_INTERVAL_MS: "100" }));
    const r = await call(tasksRoute.POST, {
      user: u,
      body: {
        conversationId: conv,
        title: "Cobalt outlook",
        prompt: "research cobalt",
        clientRequestId: randomUUID(),
        options: { simulate: { steps: 3, stepMs: 0 } },
      },
    });
    expect(r.status).toBe(202);
    const id = r.json.task.id as string;
    // Settled: finished, and its notification either delivered or given up (the narration is another module's business).
    const settled = await waitFor(
      async () => {
        const t = await getDb().task.findUniqueOrThrow({ where: { id } });
        return t.status === "succeeded" && ["delivered", "dead_letter"].includes(t.notificationStatus) ? t : null;
      },
      60_000,
      "task finished and its notification settled",
    );

    const full = await history(u, id, "?limit=500");
    expect(full.status).toBe(200);
    expect(full.json.nextCursor).toBeNull();
    const items = full.json.items as PublicHistoryItem[];

    // In order, first the creation.
    expect(items[0]).toMatchObject({
      type: "created",
      title: "Cobalt outlook",
      driver: "research",
      delivery: { mode: "none", dueAt: null },
    });
    const times = items.map((i) => Date.parse(i.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const of = <T extends PublicHistoryItem["type"]>(type: T) =>
      items.filter((i): i is Extract<PublicHistoryItem, { type: T }> => i.type === type);
    expect(of("step").map((s) => s.index)).toEqual([0, 1, 2, 3]);
    expect(of("step")[1]).toMatchObject({ kind: "section", modelRequests: 1 });
    // The plan's line, then per section the host's search line, the model's own line (send_research_update) and the host's.
    expect(of("progress")).toHaveLength(1 + 3 * 3);
    expect(of("progress").filter((p) => p.text.startsWith("Searching the web for "))).toHaveLength(3);
    expect(of("progress").filter((p) => p.text.startsWith("Researched "))).toHaveLength(3);
    expect(of("publication").map((p) => [p.version, p.partial])).toEqual([
      [1, true],
      [2, false],
    ]);
    const statuses = of("status").map((s) => s.to);
    expect(statuses[statuses.length - 1]).toBe("succeeded");
    expect(statuses).toContain("running");
    expect(of("terminal")).toEqual([expect.objectContaining({ status: "succeeded" })]);
    expect(of("notice").length).toBeGreaterThanOrEqual(1);
    const notes = items.filter((i) => i.type === "notification" || i.type === "dead_letter");
    expect(notes[0]).toMatchObject({ type: "notification", status: "dispatched" });
    expect(notes[notes.length - 1]).toMatchObject(
      settled.notificationStatus === "delivered"
        ? { type: "notification", status: "delivered" }
        : { type: "dead_letter", attempts: settled.notificationAttempts },
    );
    // What one transaction wrote sits together: the final publication, its terminal line and status, in time order.
    const index = (pred: (i: PublicHistoryItem) => boolean) => items.findIndex(pred);
    expect(index((i) => i.type === "step" && i.index === 3)).toBeLessThan(
      index((i) => i.type === "publication" && i.version === 2),
    );
    expect(index((i) => i.type === "publication" && i.version === 2)).toBeLessThan(index((i) => i.type === "notice"));
    expect(index((i) => i.type === "status" && i.to === "succeeded")).toBeLessThan(
      index((i) => i.type === "notification"),
    );
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);

    // Every page size reads the same timeline.
    for (const limit of [1, 2, 3, 7]) {
      expect((await allPages(u, id, limit)).map((i) => i.id)).toEqual(items.map((i) => i.id));
    }
    const first = await history(u, id);
    expect(first.json.items).toHaveLength(Math.min(items.length, 100));

    // Nothing the server keeps to itself.
    const row = await getDb().task.findUniqueOrThrow({ where: { id } });
    const text = JSON.stringify(full.json);
    for (const secret of [
      row.eventFingerprint,
      row.leaseOwner,
      row.notifyLeaseOwner,
      "leaseToken",
      "driverData",
      "remoteRef",
      "fingerprint",
    ]) {
      if (secret) expect(text).not.toContain(secret);
    }

    // Owner-only; bad queries name their field.
    const other = await signUp("Stranger");
    expect((await history(other, id)).status).toBe(404);
    expect(
      (await call(historyRoute.GET, { user: u, path: "/api/tasks/nope/history", params: { id: "nope" } })).status,
    ).toBe(404);
    expect((await history(u, randomUUID())).status).toBe(404);
    expect((await call(historyRoute.GET, { path: `/api/tasks/${id}/history`, params: { id } })).status).toBe(401);
    for (const [query, field] of [
      ["?limit=0", "limit"],
      ["?limit=501", "limit"],
      ["?limit=x", "limit"],
      ["?after=zzz", "after"],
      ["?after=%00", "query.after"],
    ]) {
      const bad = await history(u, id, query);
      expect(bad.status, query).toBe(400);
      expect(bad.json.error.field, query).toContain(field.replace("query.", ""));
    }
    // A cursor from another task pages nothing it should not: it is only a position.
    expect((await history(other, id, `?after=${first.json.nextCursor ?? ""}`)).status).toBe(404);
  });

  it("cancel attempts that fail and retry, the one that ends the task, notification retries and the dead letter", async () => {
    const u = await signUp("Retries");
    const conv = await createConversationFor(u);
    const db = getDb();
    // A remote task whose driver is not configured here: every cancel attempt fails until it is.
    const task = await db.task.create({
      data: {
        ownerId: u.id,
        conversationId: conv,
        title: "Remote audit",
        prompt: "audit",
        driver: "mcp:gone",
        status: "running",
        remoteRef: "remote-ref-secret",
        startedAt: new Date(),
        nextRunAt: null,
      },
    });
    await transaction((tx) => emitTaskUpdated(tx, task));
    await transaction((tx) => fenceCancel(tx, u.id, task.id));

    const attempt = async () => {
      const [claimed] = await waitFor(
        async () => {
          await db.task.update({ where: { id: task.id }, data: { nextCancelAt: new Date(Date.now() - 1000) } });
          const rows = await claimCancels("history-test", 1);
          return rows.length ? rows : null;
        },
        10_000,
        "cancel claim",
      );
      return executeCancel(claimed, new AbortController().signal);
    };
    expect(await attempt()).toBe("retry");
    expect(await attempt()).toBe("retry");
    // Configured again (and nothing was ever submitted): the third attempt ends it.
    await db.task.update({ where: { id: task.id }, data: { driver: "research", remoteRef: null } });
    expect(await attempt()).toBe("cancelled");

    // A cancelled task's notice is the whole notification: no narration run.
    expect(await notifyOne(await notifyClaim(task.id))).toBe("T7n");

    const items = await allPages(u, task.id, 2);
    const types = items.map((i) => i.type);
    expect(types[0]).toBe("created");
    expect(types.indexOf("cancel_requested")).toBeLessThan(types.indexOf("cancel_attempt"));
    const cancels = items.filter(
      (i): i is Extract<PublicHistoryItem, { type: "cancel_attempt" }> => i.type === "cancel_attempt",
    );
    expect(cancels.map((c) => [c.attempt, c.ended])).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ]);
    expect(cancels[0].error).toBeTruthy();
    expect(cancels[2].error).toBeNull();
    expect(items.filter((i) => i.type === "status").map((i) => (i as { to: string }).to)).toEqual([
      "running",
      "cancelled",
    ]);
    expect(items.filter((i) => i.type === "notification").map((n) => (n as { status: string }).status)).toEqual([
      "delivered",
    ]);
    // Order of the story: requested, attempts, the end, then what the notification did.
    const at = (pred: (i: PublicHistoryItem) => boolean) => items.findIndex(pred);
    expect(at((i) => i.type === "cancel_attempt" && i.ended)).toBeLessThan(at((i) => i.type === "notification"));
    // Commit order within the cancelling transaction: the terminal line, then the snapshot that carries the status.
    expect(at((i) => i.type === "terminal")).toBeLessThan(at((i) => i.type === "status" && i.to === "cancelled"));
    expect(at((i) => i.type === "status" && i.to === "cancelled")).toBeLessThan(at((i) => i.type === "notification"));
    expect(JSON.stringify(items)).not.toContain("remote-ref-secret");
  });

  it("a failed task's narration that fails, is retried, then dead-letters", async () => {
    const u = await signUp("DeadLetter");
    const conv = await createConversationFor(u);
    const db = getDb();
    const task = await db.task.create({
      data: {
        ownerId: u.id,
        conversationId: conv,
        title: "Lithium prices",
        prompt: "research",
        status: "running",
        startedAt: new Date(),
        nextRunAt: null,
      },
    });
    await transaction((tx) => emitTaskUpdated(tx, task));
    // The worker's handle (lib/runtime/execute-task.ts writes a terminal status in transactionWithEvents).
    await transactionWithEvents((tx) => terminal(tx, task.id, "failed", "the source went away"));

    expect(await notifyOne(await notifyClaim(task.id))).toBe("T7");
    const t = await db.task.findUniqueOrThrow({ where: { id: task.id } });
    await db.run.update({
      where: { id: t.notificationRunId! },
      data: { status: "failed", error: "model unavailable", finishedAt: new Date() },
    });
    expect(await notifyOne(await notifyClaim(task.id))).toBe("T15");
    const retried = await notifyClaim(task.id);
    await db.conversation.update({ where: { id: conv }, data: { deletedAt: new Date() } });
    expect(await notifyOne(retried)).toBe("T10");

    const items = await allPages(u, task.id, 3);
    expect(items.filter((i) => i.type === "status").map((i) => (i as { to: string }).to)).toEqual([
      "running",
      "failed",
    ]);
    const notes = items.filter((i) => i.type === "notification" || i.type === "dead_letter");
    expect(notes.map((n) => [n.type, "status" in n ? n.status : null, n.attempts])).toEqual([
      ["notification", "dispatched", 0],
      ["notification", "retry", 1],
      ["dead_letter", null, 2],
    ]);
    expect((notes[1] as { error: string }).error).toMatch(/model unavailable/);
    expect((notes[2] as { error: string }).error).toMatch(/conversation was deleted/i);
    const at = (pred: (i: PublicHistoryItem) => boolean) => items.findIndex(pred);
    expect(at((i) => i.type === "terminal")).toBeLessThan(at((i) => i.type === "notification"));
    expect(at((i) => i.type === "notification")).toBeLessThan(at((i) => i.type === "dead_letter"));
  });
});
