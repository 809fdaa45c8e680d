import { afterEach, describe, expect, it, vi } from "vitest";
import { db } from "@/lib/db/kysely";
import { backoffMs, claimExecutionSql } from "./sql";
import { claimCancelsSql } from "./cancel-sql";

afterEach(() => vi.unstubAllEnvs());

describe("task settings are read when used, not when the module loads", () => {
  it("the execution and cancel claims lease for HERALD_TASK_LEASE_MS as it is now", () => {
    vi.stubEnv("HERALD_TASK_LEASE_MS", "7000");
    expect(claimExecutionSql("w", 1, null).compile(db()).parameters).toContain(7);
    expect(claimCancelsSql("w", 1).compile(db()).parameters).toContain(7);
  });

  it("retry backoff follows HERALD_TASK_RETRY_MS and HERALD_TASK_RETRY_CAP_MS", () => {
    vi.stubEnv("HERALD_TASK_RETRY_MS", "1000");
    vi.stubEnv("HERALD_TASK_RETRY_CAP_MS", "5000");
    expect([0, 1, 2, 3, 20].map((n) => backoffMs(n))).toEqual([1000, 2000, 4000, 5000, 5000]);
  });
});
