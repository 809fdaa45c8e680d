import { json } from "@/lib/http/route";
import { checkHealth } from "@/lib/metrics/health";

export const dynamic = "force-dynamic";

// Public on purpose: load balancers and `npm start` probe it without a session.
// 200 while the database answers (workers may still be starting), else 503.
export async function GET(): Promise<Response> {
  const health = await checkHealth();
  return json(health, health.db === "ok" ? 200 : 503);
}
