import { collectMetrics } from "@/lib/metrics/collect";
import { errorResponse } from "@/lib/api/route";
import { ApiError } from "@/lib/api/errors";

export const dynamic = "force-dynamic";

// Aggregates only, so open by default like /api/health; HERALD_METRICS_TOKEN
// restricts it to scrapers that send it as a bearer token.
export async function GET(req: Request): Promise<Response> {
  const token = process.env.HERALD_METRICS_TOKEN;
  if (token && req.headers.get("authorization") !== `Bearer ${token}`) {
    return errorResponse(new ApiError("unauthorized", "Send the metrics token as a bearer token"));
  }
  return new Response(await collectMetrics(), {
    headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" },
  });
}
