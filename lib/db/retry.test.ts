import { describe, expect, it } from "vitest";
import pg from "pg";
import { Prisma } from "./generated/client.ts";
import { ApiError } from "@/lib/errors/api-error";
import { transientTransactionCode } from "./errors";
import { TRANSACTION_ATTEMPTS, transactionBackoffMs, withTransactionRetry } from "./retry";

const pgError = (code: string) => Object.assign(new pg.DatabaseError(`error ${code}`, 0, "error"), { code });
const prismaError = (code: string, meta?: Record<string, unknown>) =>
  new Prisma.PrismaClientKnownRequestError(`prisma ${code}`, { code, clientVersion: "test", meta });

/** Runs `withTransactionRetry` over a body failing with `errors` in turn, then succeeding; records runs and waits. */
async function runWith(errors: unknown[]) {
  const waits: number[] = [];
  let runs = 0;
  const result = withTransactionRetry(
    async () => {
      runs++;
      if (runs <= errors.length) throw errors[runs - 1];
      return "committed";
    },
    { sleep: async (ms) => void waits.push(ms) },
  );
  return {
    result: await result.then(
      (v) => ({ ok: v }),
      (err: unknown) => ({ err }),
    ),
    runs: () => runs,
    waits,
  };
}

describe("the transaction retry policy", () => {
  it("runs a transaction aborted as a deadlock or serialization failure again", async () => {
    for (const err of [pgError("40P01"), pgError("40001")]) {
      const r = await runWith([err]);
      expect(r.result).toEqual({ ok: "committed" });
      expect(r.runs()).toBe(2);
      expect(r.waits).toHaveLength(1);
    }
  });

  it(`stops at ${TRANSACTION_ATTEMPTS} runs and throws the last abort`, async () => {
    const errors = Array.from({ length: TRANSACTION_ATTEMPTS }, () => pgError("40P01"));
    const r = await runWith(errors);
    expect(r.result).toEqual({ err: errors.at(-1) });
    expect(r.runs()).toBe(TRANSACTION_ATTEMPTS);
    expect(r.waits).toHaveLength(TRANSACTION_ATTEMPTS - 1);
    // One abort fewer than the bound still commits.
    expect((await runWith(errors.slice(1))).result).toEqual({ ok: "committed" });
  });

  it("never runs a transaction again for any other failure", async () => {
    const others = [
      pgError("23505"),
      pgError("57014"),
      prismaError("P2002"),
      prismaError("P2028"),
      new ApiError("quota_exceeded", "too many", undefined, 60),
      new ApiError("not_found", "Conversation not found"),
      new Error("deadlock detected"),
      Object.assign(new Error("not a pg error"), { code: "40P01" }),
    ];
    for (const err of others) {
      const r = await runWith([err]);
      expect(r.result).toEqual({ err });
      expect(r.runs()).toBe(1);
      expect(r.waits).toEqual([]);
    }
  });

  it("waits longer after each abort, with jitter, within a second", () => {
    expect(transactionBackoffMs(1, () => 0)).toBe(10);
    expect(transactionBackoffMs(1, () => 1)).toBe(20);
    expect(transactionBackoffMs(3, () => 0)).toBe(40);
    expect(transactionBackoffMs(3, () => 1)).toBe(80);
    expect(transactionBackoffMs(40, () => 1)).toBe(1_000);
    expect(transactionBackoffMs(40, () => 0)).toBe(500);
  });

  it("reads the SQLSTATE an abort carries, and nothing else", () => {
    expect(transientTransactionCode(pgError("40P01"))).toBe("40P01");
    expect(transientTransactionCode(pgError("40001"))).toBe("40001");
    expect(transientTransactionCode(pgError("40P02"))).toBeNull();
    expect(transientTransactionCode(null)).toBeNull();
  });
});
