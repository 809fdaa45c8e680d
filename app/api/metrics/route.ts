import { scrapeMetrics } from "@/lib/metrics/collect";
import { scrapeAccess } from "@/lib/metrics/token";
import { errorResponse, json } from "@/lib/http/route";
import { ApiError } from "@/lib/errors/api-error";
import { log } from "@/lib/util/log";

export const dynamic = "force-dynamic";

// Off unless HERALD_METRICS_TOKEN is set, then only for scrapers that send it as
// a bearer token. Not behind route(): scrapers have no session.
export async function GET(req: Request): Promise<Response> {
  const access = scrapeAccess(req.headers.get("authorization"));
  if (access === "off") {
    return errorResponse(
      new ApiError(
        "not_found",
        "Metrics are off; set HERALD_METRICS_TOKEN and scrape with Authorization: Bearer <token>",
      ),
    );
  }
  if (access === "denied") {
    return json({ error: { code: "unauthorized", message: "Send the metrics token as a bearer token" } }, 401, {
      "www-authenticate": 'Bearer realm="metrics"',
    });
  }
  let text: string;
  try {
    text = await scrapeMetrics();
  } catch (err) {
    log("metrics").error({ err }, "collection failed");
    return errorResponse(new ApiError("unavailable", "Metrics are unavailable right now; try again shortly"));
  }
  return new Response(text, {
    headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" },
  });
}
