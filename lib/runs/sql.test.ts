import { afterEach, describe, expect, it, vi } from "vitest";
import { db } from "@/lib/db/kysely";
import { claimRunsSql, runLeaseMs, runMaxAttempts } from "./sql";

afterEach(() => vi.unstubAllEnvs());

describe("run settings are read when used, not when the module loads", () => {
  it("a claim leases for HERALD_RUN_LEASE_MS as it is now", () => {
    vi.stubEnv("HERALD_RUN_LEASE_MS", "7000");
    expect(claimRunsSql("w", 1).compile(db()).parameters).toContain(7);
    vi.stubEnv("HERALD_RUN_LEASE_MS", "9000");
    expect(claimRunsSql("w", 1).compile(db()).parameters).toContain(9);
    expect(runLeaseMs()).toBe(9000);
  });

  it("the attempt limit follows HERALD_RUN_MAX_ATTEMPTS", () => {
    vi.stubEnv("HERALD_RUN_MAX_ATTEMPTS", "7");
    expect(runMaxAttempts()).toBe(7);
  });
});
