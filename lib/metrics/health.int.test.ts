import { afterEach, describe, expect, it, vi } from "vitest";
import os from "node:os";
import { randomUUID } from "node:crypto";
import * as health from "@/app/api/health/route";
import { db } from "@/lib/db/kysely";
import { HEALTH_CACHE_MS, HEALTH_TIMEOUT_MS } from "@/lib/metrics/health";
import { beat, markStopped } from "@/lib/fleet/heartbeat";

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

// Each test starts past the previous one's cache window.
let skew = 0;
function freshWindow(toFake: ("Date" | "setTimeout" | "clearTimeout")[] = ["Date"]) {
  vi.useFakeTimers({ toFake });
  skew += 60 * 60_000;
  vi.setSystemTime(Date.now() + skew);
}

/** The body is the contract whitelist and nothing an outsider could use. */
function expectNothingUseful(text: string) {
  const body = JSON.parse(text);
  expect(Object.keys(body).sort()).toEqual(["db", "workers"]);
  expect(Object.keys(body.workers).sort()).toEqual(["alive", "lastBeatAt"]);
  expect(["ok", "down"]).toContain(body.db);
  expect(typeof body.workers.alive).toBe("number");
  if (body.workers.lastBeatAt !== null)
    expect(body.workers.lastBeatAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  expect(text).not.toMatch(/\d+\.\d+\.\d+/); // versions, IPv4 addresses
  expect(text).not.toMatch(/:\d{3,5}\b/); // ports (a timestamp's ":ss" has two digits)
  expect(text).not.toMatch(
    /postgres|prisma|pg_|sql|version|host|port|pid|error|exception|stack|econn|refused|timeout|localhost|::1/i,
  );
  expect(text).not.toContain(JSON.stringify(os.hostname()));
}

describe("/api/health", () => {
  it("answers 200 with the contract fields only while the database is up", async () => {
    freshWindow();
    const id = `health-test-${randomUUID()}`;
    await beat(id, ["runs"], new Date());
    await markStopped(id);
    const res = await health.GET();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    const text = await res.text();
    expectNothingUseful(text);
    expect(JSON.parse(text).db).toBe("ok");
    expect(JSON.parse(text).workers.lastBeatAt).not.toBeNull();
  });

  it("answers 503 without error text when the database query fails", async () => {
    freshWindow();
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(db().getExecutor(), "executeQuery").mockRejectedValue(
      new Error(`connect ECONNREFUSED 127.0.0.1:5432 PostgreSQL 18.1 on ${os.hostname()} pid ${process.pid}`),
    );
    const res = await health.GET();
    expect(res.status).toBe(503);
    const text = await res.text();
    expectNothingUseful(text);
    expect(JSON.parse(text)).toEqual({ db: "down", workers: { alive: 0, lastBeatAt: null } });
    expect(logged).toHaveBeenCalled();
  });

  it("answers 503 when the database does not answer in time", async () => {
    freshWindow(["Date", "setTimeout", "clearTimeout"]);
    vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(db().getExecutor(), "executeQuery").mockReturnValue(new Promise(() => {}) as never);
    const pending = health.GET();
    await vi.advanceTimersByTimeAsync(HEALTH_TIMEOUT_MS);
    const res = await pending;
    expect(res.status).toBe(503);
    expectNothingUseful(await res.text());
  });

  it("shares one database round trip between probes within the cache window", async () => {
    freshWindow();
    const spy = vi.spyOn(db().getExecutor(), "executeQuery");
    const all = await Promise.all(Array.from({ length: 20 }, () => health.GET()));
    expect(all.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(spy).toHaveBeenCalledTimes(1);
    vi.setSystemTime(Date.now() + HEALTH_CACHE_MS);
    expect((await health.GET()).status).toBe(200);
    expect(spy).toHaveBeenCalledTimes(2);
  });
});
