import { afterEach, describe, expect, it, vi } from "vitest";
import { getDb } from "@/lib/db/client";
import { liveWorkers } from "./heartbeat";

afterEach(() => vi.unstubAllEnvs());

describe("liveWorkers", () => {
  it("counts a worker as live by HERALD_HEARTBEAT_STALE_MS as it is when asked", async () => {
    await getDb().$executeRaw`
      INSERT INTO "worker_heartbeat" (id, host, pid, "startedAt", "lastBeatAt", loops)
      VALUES ('beat-5s-ago', 'h', 1, now() - interval '1 minute', now() - interval '5 seconds', '[]'::jsonb)`;
    vi.stubEnv("HERALD_HEARTBEAT_STALE_MS", "60000");
    expect((await liveWorkers()).alive).toBe(1);
    vi.stubEnv("HERALD_HEARTBEAT_STALE_MS", "2000");
    expect((await liveWorkers()).alive).toBe(0);
  });
});
