import { afterAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import * as events from "@/app/api/events/route";
import { getDb } from "@/lib/db/client";
import { db, transaction } from "@/lib/db/kysely";
import { sql } from "kysely";
import { emitEvent } from "@/lib/events/emit";
import { postMessage } from "@/lib/chat/post-message";
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
import { takeSseFrames, type SseFrame } from "@/tests/sse";
import { RETENTION_JOB, retentionTick, runRetention } from "./job";

async function emit(user: TestUser, n: number) {
  for (let i = 0; i < n; i++) {
    await transaction((tx) => emitEvent(tx, user.id, { type: "task.updated", data: { task: { i } as never } }));
  }
}

/** Ages an account's events up to `seq` past the 30-day window. */
const age = (user: TestUser, upto: number) =>
  db()
    .updateTable("event")
    .set({ createdAt: sql<Date>`now() - interval '40 days'` })
    .where("ownerId", "=", user.id)
    .where("seq", "<=", BigInt(upto))
    .execute();

const seqs = async (user: TestUser) =>
  (await getDb().event.findMany({ where: { ownerId: user.id }, orderBy: { seq: "asc" } })).map((e) => Number(e.seq));

/** An open /api/events stream and the frames it sent so far. */
async function openFeed(user: TestUser, after: number) {
  const { res } = await call(events.GET, { user, path: `/api/events?after=${after}` });
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  const frames: SseFrame[] = [];
  let buf = "";
  const pump = (async () => {
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) return;
      const taken = takeSseFrames(buf + dec.decode(chunk.value, { stream: true }));
      buf = taken.rest;
      frames.push(...taken.frames);
    }
  })();
  return {
    frames,
    until: (n: number) => waitFor(async () => frames.length >= n, 10_000, `${n} frames`),
    close: async () => {
      await reader.cancel();
      await pump;
    },
  };
}

const workers: WorkerProc[] = [];
afterAll(() => stopWorkers(...workers));

describe("retention", () => {
  it("deletes expired feed events as a prefix of each log, dead heartbeats and expired sessions; keeps the user's rows", async () => {
    const a = await signUp("Retention A");
    const b = await signUp("Retention B");
    const conv = await createConversationFor(a);
    const db = getDb();
    await postMessage(a.id, conv, { content: "keep me", clientMessageId: randomUUID() });
    const aSeqBefore = await seqs(a);
    await emit(a, 4);
    await emit(b, 3);
    const aHead = Math.max(...(await seqs(a)));
    await age(a, aHead - 2); // everything but the last two
    await age(b, 3); // the whole log
    await db.workerHeartbeat.create({
      data: {
        id: `dead-${randomUUID()}`,
        host: "h",
        pid: 1,
        loops: [],
        lastBeatAt: new Date(Date.now() - 3 * 86_400_000),
      },
    });
    const oldSession = await db.session.create({
      data: { id: randomUUID(), token: randomUUID(), userId: b.id, expiresAt: new Date(Date.now() - 2 * 86_400_000) },
    });

    // A tab of A that had read up to the window's edge, one of B at its head, one of A far behind.
    const edge = await openFeed(a, aHead - 2);
    const atHead = await openFeed(b, 3);
    const r = await runRetention();
    expect(r.events).toBeGreaterThanOrEqual(aHead - 2 + 3);
    expect(r.heartbeats).toBeGreaterThanOrEqual(1);
    expect(r.sessions).toBeGreaterThanOrEqual(1);

    expect(await seqs(a)).toEqual([aHead - 1, aHead]);
    expect(await seqs(b)).toEqual([]);
    expect(await db.session.findUnique({ where: { id: oldSession.id } })).toBeNull();
    expect(await db.session.count({ where: { userId: b.id, expiresAt: { gt: new Date() } } })).toBe(1);
    // The user's record stays whatever its age.
    expect(aSeqBefore.length).toBeGreaterThan(0);
    expect(await db.message.count({ where: { conversationId: conv } })).toBeGreaterThanOrEqual(1);
    expect(await db.run.count({ where: { conversationId: conv } })).toBe(1);
    expect(await db.conversation.count({ where: { id: conv } })).toBe(1);

    // Open streams go on without a gap: A's gets the two kept events, then new ones; B's, at its head, new ones.
    await emit(a, 1);
    await emit(b, 1);
    await edge.until(3);
    expect(edge.frames.map((f) => Number(f.id))).toEqual([aHead - 1, aHead, aHead + 1]);
    await atHead.until(1);
    expect(atHead.frames.map((f) => f.id)).toEqual(["4"]);
    await edge.close();
    await atHead.close();

    // A client whose cursor fell behind the kept log is told to resync, then continues from the head.
    const behind = await openFeed(a, 1);
    await behind.until(1);
    expect(behind.frames[0].event).toBe("reset");
    expect(Number(behind.frames[0].id)).toBe(aHead + 1);
    await emit(a, 1);
    await behind.until(2);
    expect(Number(behind.frames[1].id)).toBe(aHead + 2);
    await behind.close();
  });

  it("runs once per interval however many callers ask at once", async () => {
    await db()
      .updateTable("maintenance_job")
      .set({ nextRunAt: sql<Date>`now() - interval '1 second'` })
      .where("name", "=", RETENTION_JOB)
      .execute();
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => retentionTick(`caller-${i}`, 60_000)));
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    expect(await retentionTick("late-caller", 60_000)).toBeNull();
    const job = await getDb().maintenanceJob.findUniqueOrThrow({ where: { name: RETENTION_JOB } });
    expect(job.lastOwner).toMatch(/^caller-\d$/);
    expect(job.lastFinishedAt).not.toBeNull();
  });

  it("two worker processes: only one runs the due job, and it records what it deleted", async () => {
    const u = await signUp("Retention workers");
    await emit(u, 3);
    await age(u, 3);
    const prisma = getDb();
    const due = sql<Date>`now() - interval '1 second'`;
    await db()
      .insertInto("maintenance_job")
      .values({ name: RETENTION_JOB, nextRunAt: due })
      .onConflict((oc) => oc.column("name").doUpdateSet({ nextRunAt: due, lastFinishedAt: null }))
      .execute();
    const env = { HERALD_RETENTION_INTERVAL_MS: "600000" };
    workers.push(startWorkerProcess(env), startWorkerProcess(env));
    const job = await waitFor(
      async () => {
        const row = await prisma.maintenanceJob.findUniqueOrThrow({ where: { name: RETENTION_JOB } });
        return row.lastFinishedAt ? row : null;
      },
      30_000,
      "the retention run",
    );
    expect(await seqs(u)).toEqual([]);
    expect((job.lastResult as { events: number }).events).toBeGreaterThanOrEqual(3);
    // Both workers are up and have checked (their heartbeats are written after the first check is under way).
    await waitFor(
      async () =>
        (await prisma.workerHeartbeat.count({
          where: { stoppedAt: null, lastBeatAt: { gt: new Date(Date.now() - 5_000) } },
        })) >= 2,
      30_000,
      "both workers",
    );
    // The log line follows the row's write: wait for it, then count who ran.
    const finished = (w: (typeof workers)[number]) => w.output().includes("retention run finished");
    await waitFor(async () => workers.some(finished), 10_000, "the run's log line");
    expect(workers.filter(finished)).toHaveLength(1);
    expect(job.nextRunAt.getTime()).toBeGreaterThan(Date.now() + 500_000);
  });
});
