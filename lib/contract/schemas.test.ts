import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { deliveryInput, idParams, listMessagesQuery, listTasksQuery, PG_INT_MAX } from "@/lib/contract/schemas";
import { findUnstorable } from "@/lib/http/route";

const runs = { seed: 20261130, numRuns: 500 };

describe("request schemas at the database's edges", () => {
  it("a string is storable exactly when it survives UTF-8 and holds no NUL", () => {
    // Independent oracle: encoding to UTF-8 replaces an unpaired surrogate.
    const oracle = (s: string) => Buffer.from(s, "utf8").toString("utf8") === s && !s.includes("\u0000");
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 20 }), (s) => {
        expect(findUnstorable(s) === null).toBe(oracle(s));
        expect(findUnstorable({ a: [1, { b: s }] })).toEqual(oracle(s) ? null : ["a", 1, "b"]);
        expect(findUnstorable({ [s]: 1 }) === null).toBe(oracle(s));
      }),
      runs,
    );
    // Deep nesting neither overflows the stack nor hides a NUL.
    let deep: unknown = "x\u0000";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findUnstorable(deep)).toHaveLength(100_000);
  });

  it("integer query parameters parse faithfully or not at all", () => {
    const schemas = [
      { schema: listMessagesQuery, key: "after", min: 0, max: PG_INT_MAX },
      { schema: listMessagesQuery, key: "limit", min: 1, max: 500 },
      { schema: listTasksQuery, key: "limit", min: 1, max: 100 },
    ] as const;
    fc.assert(
      fc.property(
        fc.nat({ max: schemas.length - 1 }),
        fc.oneof(
          fc.string({ unit: "binary" }),
          fc.bigInt().map(String),
          fc.double().map(String),
          fc.nat({ max: 600 }).map(String),
        ),
        (which, raw) => {
          const { schema, key, min, max } = schemas[which];
          const r = schema.safeParse({ [key]: raw });
          if (!r.success) {
            expect(r.error.issues[0].path).toEqual([key]);
            return;
          }
          const n = (r.data as Record<string, number | undefined>)[key];
          if (raw === "") {
            expect(n).toBeUndefined();
            return;
          }
          expect(Number.isInteger(n)).toBe(true);
          expect(n).toBeGreaterThanOrEqual(min);
          expect(n).toBeLessThanOrEqual(max);
          expect(BigInt(raw)).toBe(BigInt(n!));
          expect(raw).toMatch(/^[0-9]+$/);
        },
      ),
      runs,
    );
    for (const v of ["1e30", "9".repeat(40), "-1", "1.5", "0x10", " 1", "1 ", "+1", String(PG_INT_MAX + 1)]) {
      expect(listMessagesQuery.safeParse({ after: v }).success, v).toBe(false);
    }
    expect(listMessagesQuery.parse({ after: String(PG_INT_MAX) })).toEqual({ after: PG_INT_MAX });
  });

  it("ids are the database's uuids, nothing else", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: "binary" }),
          fc.uuid().map((u) => u.toUpperCase()),
        ),
        (s) => {
          expect(idParams.safeParse({ id: s }).success).toBe(/^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/.test(s));
        },
      ),
      runs,
    );
    expect(idParams.safeParse({ id: randomUUID() }).success).toBe(true);
  });

  it("an accepted dueAt is a real instant at most about a week ahead", () => {
    const horizon = () => Date.now() + 8 * 24 * 3600_000;
    fc.assert(
      fc.property(fc.date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true }), (d) => {
        const dueAt = d.toISOString();
        const r = deliveryInput.safeParse({ mode: "at", dueAt });
        if (r.success) {
          expect(d.getTime()).toBeGreaterThanOrEqual(Date.parse("2000-01-01T00:00:00Z"));
          expect(d.getTime()).toBeLessThanOrEqual(horizon());
        } else expect(r.error.issues[0].path).toEqual(["dueAt"]);
      }),
      runs,
    );
    expect(deliveryInput.safeParse({ mode: "at", dueAt: "9999-12-31T23:59:59Z" }).success).toBe(false);
    expect(deliveryInput.safeParse({ mode: "at", dueAt: new Date(Date.now() + 3600_000).toISOString() }).success).toBe(
      true,
    );
  });
});
