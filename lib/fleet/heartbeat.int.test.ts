import { afterEach, describe, expect, it, vi } from "vitest";
import { db, jsonb } from "@/lib/db/kysely";
import { sql } from "kysely";
import { liveWorkers } from "./heartbeat";

afterEach(() => vi.unstubAllEnvs());

describe("liveWorkers", () => {
  it("counts a worker as live by HERALD_HEARTBEAT_STALE_MS as it is when asked", async () => {
    await db()
      .insertInto("worker_heartbeat")
      .values({
        id: "beat-5s-ago",
        host: "h",
        pid: 1,
        startedAt: sql<Date>`now() - interval '1 minute'`,
        lastBeatAt: sql<Date>`now() - interval '5 seconds'`,
        loops: jsonb([]),
      })
      .execute();
    vi.stubEnv("HERALD_HEARTBEAT_STALE_MS", "60000");
    expect((await liveWorkers()).alive).toBe(1);
    vi.stubEnv("HERALD_HEARTBEAT_STALE_MS", "2000");
    expect((await liveWorkers()).alive).toBe(0);
  });
});
