import { describe, expect, it } from "vitest";
import { APICallError } from "@ai-sdk/provider";
import { BACKOFF_CAP_MS, backoffMs, retryAfterOf } from "@/lib/util/backoff";
import { backgroundWaitMs, ModelTimeoutError, verdictOf } from "./retry";
import { Breaker } from "@/lib/util/breaker";

const apiError = (statusCode: number, headers: Record<string, string> = {}) =>
  new APICallError({ message: "x", url: "http://p/v1", requestBodyValues: {}, statusCode, responseHeaders: headers });

describe("retry policy", () => {
  it("reads Retry-After as seconds, as an HTTP-date, and retry-after-ms", () => {
    const now = Date.parse("2026-11-30T12:00:00Z");
    expect(retryAfterOf({ "Retry-After": "7" }, now)).toBe(7_000);
    expect(retryAfterOf({ "retry-after": "Mon, 30 Nov 2026 12:00:20 GMT" }, now)).toBe(20_000);
    expect(retryAfterOf({ "retry-after": "Mon, 30 Nov 2026 11:00:00 GMT" }, now)).toBe(0);
    expect(retryAfterOf({ "retry-after-ms": "250", "retry-after": "9" }, now)).toBe(250);
    expect(retryAfterOf({ "retry-after": "soon" }, now)).toBeNull();
    expect(retryAfterOf({ "retry-after": "999999" }, now)).toBe(3_600_000);
  });

  it("retries rate limits, server errors, stalls and dropped connections; not refusals", () => {
    expect(verdictOf(apiError(429, { "retry-after": "3" }))).toEqual({ retryable: true, retryAfterMs: 3_000 });
    expect(verdictOf(apiError(503)).retryable).toBe(true);
    expect(verdictOf(new ModelTimeoutError(10)).retryable).toBe(true);
    expect(verdictOf(Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } })).retryable).toBe(
      true,
    );
    for (const s of [400, 401, 403, 404, 422]) expect(verdictOf(apiError(s)).retryable).toBe(false);
    expect(verdictOf(new Error("the model wrote no section text")).retryable).toBe(false);
  });

  it("backs off exponentially with jitter, up to the cap", () => {
    expect(backoffMs(0, () => 0)).toBe(500);
    expect(backoffMs(0, () => 1)).toBe(1_000);
    expect(backoffMs(3, () => 0)).toBe(4_000);
    expect(backoffMs(40, () => 1)).toBe(BACKOFF_CAP_MS);
    // Background waits grow with the time already waited, and the provider's advice wins.
    expect(backgroundWaitMs(0, null, () => 1)).toBe(1_000);
    expect(backgroundWaitMs(20_000, null, () => 1)).toBe(10_000);
    expect(backgroundWaitMs(3_600_000, null, () => 1)).toBe(BACKOFF_CAP_MS);
    expect(backgroundWaitMs(3_600_000, 2_000)).toBe(2_000);
  });
});

describe("breaker", () => {
  it("opens after the threshold, lets one probe through after the cooldown, doubles the cooldown on a failed probe", () => {
    let t = 0;
    const b = new Breaker({ threshold: 3, cooldownMs: 1_000, maxCooldownMs: 3_000, now: () => t });
    b.failure();
    b.failure();
    expect(b.admit()).toEqual({ ok: true, probe: false });
    b.failure();
    expect(b.state).toBe("open");
    expect(b.admit()).toEqual({ ok: false, retryInMs: 1_000 });
    t = 1_000;
    expect(b.admit()).toEqual({ ok: true, probe: true });
    expect(b.admit().ok).toBe(false);
    b.failure();
    expect(b.admit()).toEqual({ ok: false, retryInMs: 2_000 });
    t = 3_000;
    expect(b.admit()).toEqual({ ok: true, probe: true });
    b.failure(10_000);
    expect(b.admit()).toEqual({ ok: false, retryInMs: 10_000 });
    t = 13_000;
    expect(b.admit().ok).toBe(true);
    b.success();
    expect(b.state).toBe("closed");
  });
});
