import { env } from "@/lib/config/env";
import { createHash, timingSafeEqual } from "node:crypto";

/**
 * `off`: no HERALD_METRICS_TOKEN is configured, so the endpoint does not exist;
 * `denied`: a token is configured and the request did not present it.
 */
export type ScrapeAccess = "ok" | "off" | "denied";

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/**
 * Checks `Authorization: Bearer <token>` against the configured metrics token.
 * Both sides are hashed first so the constant-time comparison always sees equal
 * lengths: neither a prefix nor the token's length shows in the timing.
 */
export function scrapeAccess(authorization: string | null, configured = env("HERALD_METRICS_TOKEN")): ScrapeAccess {
  // Secrets mounted from files often end in a newline that no scraper sends.
  const expected = configured?.trim();
  if (!expected) return "off";
  const presented = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? "")?.[1];
  const same = timingSafeEqual(digest(presented ?? ""), digest(expected));
  return same && presented !== undefined ? "ok" : "denied";
}
