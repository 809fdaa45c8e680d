import { describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/client";
import { emitEvent } from "@/lib/events/emit";
import { signUp } from "@/tests/helpers";
import { reapOnce } from "./reaper";

describe("reaper", () => {
  it("drops events past retention and long-dead heartbeats, keeps the rest", async () => {
    const u = await signUp("Reaper");
    const db = getDb();
    for (let i = 0; i < 3; i++) await db.$transaction((tx) => emitEvent(tx, u.id, { type: "task.updated", data: { task: { i } as never } }));
    await db.$executeRaw`UPDATE "event" SET "createdAt" = now() - interval '400 days' WHERE "ownerId" = ${u.id} AND seq <= 2`;
    await db.workerHeartbeat.create({ data: { id: "dead-long-ago", host: "h", pid: 1, loops: [], lastBeatAt: new Date(Date.now() - 3 * 86_400_000) } });
    const r = await reapOnce();
    expect(r).not.toBeNull();
    expect((await db.event.findMany({ where: { ownerId: u.id } })).map((e) => Number(e.seq))).toEqual([3]);
    expect(await db.workerHeartbeat.findUnique({ where: { id: "dead-long-ago" } })).toBeNull();
  });
});
