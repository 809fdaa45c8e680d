import { json } from "@/lib/api/route";
import { getDb } from "@/lib/db/client";
import { liveWorkers } from "@/lib/workers/heartbeat";

export const dynamic = "force-dynamic";

// Public on purpose: load balancers and `npm start` probe it without a session.
export async function GET(): Promise<Response> {
  try {
    await getDb().$queryRaw`SELECT 1`;
    const workers = await liveWorkers();
    return json({ db: "ok", workers });
  } catch (err) {
    console.error("[health] database check failed", err);
    return json({ db: "down", workers: { alive: 0, lastBeatAt: null } }, 503);
  }
}
