import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { startTask } from "@/lib/tasks/start-task";
import type { DeliveryContract } from "@/lib/contract/schemas";
import { postMessage } from "@/lib/chat/post-message";
import * as messagesRoute from "@/app/api/conversations/[id]/messages/route";
import * as taskRoute from "@/app/api/tasks/[id]/route";
import * as eventsRoute from "@/app/api/events/route";
import { claimNotifications, notifyOne } from "@/lib/notify/deliver";
import { isTerminalStatus } from "@/lib/contract/task";
import { requestCancel } from "@/lib/tasks/request-cancel";
import {
  call,
  createConversationFor,
  signUp,
  startWorkerProcess,
  stopWorkers,
  waitFor,
  waitForBeat,
  type TestUser,
  type WorkerProc,
} from "@/tests/helpers";

let w: WorkerProc;
let u: TestUser;
beforeAll(async () => {
  w = startWorkerProcess({ HERALD_POLL_MS: "300" });
  u = await signUp("Delivery");
  // "Finished early" needs a worker that is already up when the clock starts, not one still loading on a busy machine.
  await waitForBeat(w);
});
afterAll(() => stopWorkers(w));

const db = () => getDb();
const task = (id: string) => db().task.findUniqueOrThrow({ where: { id } });
const notices = (id: string) => db().notice.findMany({ where: { taskId: id }, orderBy: { createdAt: "asc" } });

async function launch(simulate: { steps: number; stepMs: number }, delivery: DeliveryContract) {
  const conv = await createConversationFor(u);
  const { task: t } = await startTask({
    ownerId: u.id,
    conversationId: conv,
    title: `timed ${delivery.mode}`,
    prompt: "p",
    clientRequestId: randomUUID(),
    options: { simulate },
    delivery,
  });
  return { id: t.id, conv };
}

const settled = (id: string) =>
  waitFor(
    async () => {
      const t = await task(id);
      return isTerminalStatus(t.status) && ["delivered", "none"].includes(t.notificationStatus) && t.dueEvaluatedAt
        ? t
        : null;
    },
    40_000,
    "task settled and due evaluated",
  );

describe("timed delivery with real workers", () => {
  it("at: a body finished early is readable at once; the notice waits for dueAt and says on time", async () => {
    const { id } = await launch({ steps: 2, stepMs: 0 }, { mode: "at", dueInSeconds: 5 });
    await waitFor(async () => (await task(id)).status === "succeeded", 20_000, "finished early");
    const early = await task(id);
    expect(await db().publication.count({ where: { taskId: id, partial: false } })).toBe(1);
    expect(early.completedAt!.getTime()).toBeLessThan(early.dueAt!.getTime());
    expect(await notices(id)).toEqual([]);
    const t = await settled(id);
    const [n] = await notices(id);
    expect([n.key, n.outcome, n.publicationId]).toEqual(["due", "on_time", t.latestPublicationId]);
    expect(n.createdAt.getTime()).toBeGreaterThanOrEqual(t.dueAt!.getTime());
    expect(t.deliveryOutcome).toBe("on_time");
    expect(await notices(id)).toHaveLength(1);
  });

  it("at: unfinished at dueAt → a missed due notice with the partial, later a separate late final; both stay", async () => {
    // Partial at ~2 s, due at 3 s, final at ~4 s: a second of margin on each side.
    const { id, conv } = await launch({ steps: 2, stepMs: 2000 }, { mode: "at", dueInSeconds: 3 });
    const t = await settled(id);
    const ns = await notices(id);
    expect(ns.map((n) => [n.key, n.outcome])).toEqual([
      ["due", "missed"],
      ["final", "late"],
    ]);
    const partial = await db().publication.findFirstOrThrow({ where: { taskId: id, partial: true } });
    expect(ns[0].publicationId).toBe(partial.id);
    expect(ns[1].publicationId).toBe(t.latestPublicationId);
    expect(t.deliveryOutcome).toBe("missed");
    const kinds = (await call(messagesRoute.GET, { user: u, params: { id: conv } })).json.messages.filter(
      (m: { kind: string }) => m.kind === "notice",
    );
    expect(kinds.map((m: { meta: { outcome: string } }) => m.meta.outcome)).toEqual(["missed", "late"]);
  });

  it("by: the final notice goes out as soon as the final body exists (early), nothing more at dueAt", async () => {
    const { id } = await launch({ steps: 2, stepMs: 0 }, { mode: "by", dueInSeconds: 3 });
    await waitFor(async () => (await notices(id)).length === 1, 20_000, "early final notice");
    const before = await task(id);
    expect(before.dueEvaluatedAt).toBeNull();
    expect((await notices(id)).map((n) => [n.key, n.outcome])).toEqual([["final", "early"]]);
    const t = await settled(id);
    expect(t.deliveryOutcome).toBe("early");
    expect(await notices(id)).toHaveLength(1);
  });

  it("by without report-anyway: silent at dueAt, the later final notice says late", async () => {
    const { id } = await launch({ steps: 2, stepMs: 1500 }, { mode: "by", dueInSeconds: 2 });
    await settled(id);
    expect((await notices(id)).map((n) => [n.key, n.outcome])).toEqual([["final", "late"]]);
    expect((await task(id)).deliveryOutcome).toBe("missed");
  });

  it("by with report-anyway: a missed due notice at dueAt, then the late final", async () => {
    const { id } = await launch({ steps: 2, stepMs: 1500 }, { mode: "by", dueInSeconds: 2, reportIfUnfinished: true });
    await settled(id);
    expect((await notices(id)).map((n) => [n.key, n.outcome])).toEqual([
      ["due", "missed"],
      ["final", "late"],
    ]);
  });

  it("no overtime: at dueAt the research stops, keeps its partial, and the notice says stopped", async () => {
    const { id } = await launch({ steps: 2, stepMs: 2000 }, { mode: "at", dueInSeconds: 3, allowOvertime: false });
    const t = await settled(id);
    expect(t.status).toBe("deadline_exceeded");
    expect((await notices(id)).map((n) => [n.key, n.outcome])).toEqual([["due", "stopped"]]);
    const line = await db().message.findFirst({ where: { taskId: id, kind: "terminal" } });
    expect((line?.meta as { status?: string } | null)?.status).toBe("deadline_exceeded");
    const pubs = await db().publication.findMany({ where: { taskId: id } });
    expect(pubs.map((p) => p.partial)).toEqual([true]);
    expect((await notices(id))[0].publicationId).toBe(pubs[0].id);
  });

  it("overtime within budget: after a missed dueAt it goes on until the budget is spent, then stops with a notice", async () => {
    // Whole steps of margin on each side (a loaded machine stretches every step): due after about one step, the
    // half-way partial after two, the budget spent after about three of the four.
    const { id } = await launch(
      { steps: 4, stepMs: 2000 },
      { mode: "at", dueInSeconds: 3, budget: { maxWallSeconds: 6.5 } },
    );
    const t = await waitFor(
      async () => {
        const r = await task(id);
        return r.status === "deadline_exceeded" ? r : null;
      },
      30_000,
      "stopped in overtime",
    );
    expect(t.deliveryOutcome).toBe("missed");
    expect((await notices(id)).map((n) => [n.key, n.outcome])).toEqual([
      ["due", "missed"],
      ["stopped", "stopped"],
    ]);
    const steps = await db().taskStep.count({ where: { taskId: id } });
    expect(steps).toBeGreaterThanOrEqual(2); // it did go on past the dueAt…
    expect(steps).toBeLessThan(5); // …but not to the end
    expect(await db().publication.count({ where: { taskId: id, partial: true } })).toBe(1);
  });

  it("a timed task cancelled before its due moment stays cancelled: the due moment records no outcome, no notice and no model turn", async () => {
    const { id, conv } = await launch({ steps: 6, stepMs: 1000 }, { mode: "at", dueInSeconds: 2 });
    await waitFor(async () => (await task(id)).status === "running", 20_000, "running");
    await requestCancel(u.id, id);
    const t = await settled(id);
    expect(t.status).toBe("cancelled");
    expect(t.deliveryOutcome).toBeNull();
    expect((await notices(id)).map((n) => [n.key, n.outcome])).toEqual([["cancelled", "cancelled"]]);
    expect(await db().run.count({ where: { conversationId: conv } })).toBe(0);
  });

  it("the contract is anchored on the accepted message: dueAt = its createdAt + duration", async () => {
    const conv = await createConversationFor(u);
    const { message } = await postMessage(u.id, conv, {
      content: "research heat pumps and tell me in 5 minutes",
      clientMessageId: randomUUID(),
    });
    const stored = await db().message.findUniqueOrThrow({ where: { id: message.id } });
    const meta = stored.meta as { delivery: { mode: string; dueAt: string } };
    expect(meta.delivery.mode).toBe("at");
    expect(new Date(meta.delivery.dueAt).getTime()).toBe(stored.createdAt.getTime() + 300_000);
    const t = await waitFor(
      () => db().task.findFirst({ where: { conversationId: conv } }),
      20_000,
      "task from the chat turn",
    );
    expect(t.deliveryMode).toBe("at");
    expect(t.dueAt!.getTime()).toBe(stored.createdAt.getTime() + 300_000);
  });

  it("re-reading history, reconnecting the feed, retrying delivery and reopening add zero model requests", async () => {
    const { id, conv } = await launch({ steps: 2, stepMs: 0 }, { mode: "by", dueInSeconds: 2 });
    await settled(id);
    const count = async () => {
      const runs = await db().run.aggregate({ where: { conversationId: conv }, _sum: { modelRequests: true } });
      const steps = await db().taskStep.aggregate({ where: { taskId: id }, _sum: { modelRequests: true } });
      return {
        runs: runs._sum.modelRequests ?? 0,
        steps: steps._sum.modelRequests ?? 0,
        task: (await task(id)).modelRequests,
      };
    };
    const before = await count();
    expect(before.steps).toBe(3);
    expect(before.task).toBe(3);
    expect(before.runs).toBe(0); // a timed promise is delivered by its notice: no narration turn
    for (let i = 0; i < 3; i++) {
      await call(messagesRoute.GET, { user: u, params: { id: conv } });
      await call(taskRoute.GET, { user: u, params: { id } });
      const feed = await call(eventsRoute.GET, { user: u, path: "/api/events?after=0" });
      await feed.res.body!.cancel();
    }
    // A delivery retry of the already-delivered version finds nothing to do.
    const claimed = await claimNotifications("retry-test", 5, { onlyTaskIds: [id] });
    for (const row of claimed) await notifyOne(row);
    expect(await count()).toEqual(before);
  });
});
