import { describe, expect, it } from "vitest";
import { byOutcome, evaluateDue, plannedNotices, type ContractFacts } from "./contract";

const created = new Date("2026-11-29T10:00:00Z");
const due = new Date("2026-11-29T10:10:00Z");
const before = new Date("2026-11-29T10:05:00Z");
const after = new Date("2026-11-29T10:15:00Z");

function facts(over: Partial<ContractFacts>): ContractFacts {
  return {
    mode: "at",
    dueAt: due,
    createdAt: created,
    reportIfUnfinished: false,
    status: "running",
    completedAt: null,
    dueEvaluatedAt: null,
    stoppedAtDeadline: false,
    stoppedInOvertime: false,
    finalPublicationId: null,
    latestPublicationId: null,
    ...over,
  };
}

const keys = (f: ContractFacts) => plannedNotices(f).map((n) => `${n.key}/${n.outcome}`);
const noOvertime = { allowOvertime: false, budgetExceeded: false };
const overtime = { allowOvertime: true, budgetExceeded: false };
const spent = { allowOvertime: true, budgetExceeded: true };

describe("due evaluation: mode × finished-before/after × partial × report-anyway × overtime/budget", () => {
  for (const mode of ["at", "by"] as const) {
    for (const report of [false, true]) {
      it(`${mode}, report=${report}: final before dueAt → on_time, notice only for at`, () => {
        const ev = evaluateDue(
          facts({
            mode,
            reportIfUnfinished: report,
            status: "succeeded",
            completedAt: before,
            finalPublicationId: "F",
            latestPublicationId: "F",
          }),
          overtime,
        );
        expect(ev.outcome).toBe("on_time");
        expect(ev.stop).toBe(false);
        expect(ev.notice).toEqual(mode === "at" ? { key: "due", outcome: "on_time", publicationId: "F" } : null);
      });
      for (const partial of [false, true]) {
        const latest = partial ? "P" : null;
        it(`${mode}, report=${report}, partial=${partial}: unfinished with overtime → missed, keeps running`, () => {
          const ev = evaluateDue(facts({ mode, reportIfUnfinished: report, latestPublicationId: latest }), overtime);
          expect(ev.outcome).toBe("missed");
          expect(ev.stop).toBe(false);
          const silent = mode === "by" && !report;
          expect(ev.notice).toEqual(silent ? null : { key: "due", outcome: "missed", publicationId: latest });
        });
        for (const [label, ot] of [
          ["no overtime", noOvertime],
          ["budget spent", spent],
        ] as const) {
          it(`${mode}, report=${report}, partial=${partial}, ${label}: stops with a stopped notice pointing at the partial`, () => {
            const ev = evaluateDue(facts({ mode, reportIfUnfinished: report, latestPublicationId: latest }), ot);
            expect(ev.outcome).toBe("missed");
            expect(ev.stop).toBe(true);
            expect(ev.notice).toEqual({ key: "due", outcome: "stopped", publicationId: latest });
          });
        }
      }
    }
  }

  it("a final body that landed after dueAt, before the evaluation ran, is missed (and told late), never on time", () => {
    // Report-anyway too: the user hears once, with the whole result, not "not yet" and the result together.
    for (const mode of ["at", "by"] as const) {
      for (const reportIfUnfinished of [false, true]) {
        const f = facts({
          mode,
          reportIfUnfinished,
          status: "succeeded",
          completedAt: after,
          finalPublicationId: "F",
          latestPublicationId: "F",
        });
        expect(evaluateDue(f, overtime)).toEqual({ outcome: "missed", notice: null, stop: false });
        expect(keys({ ...f, dueEvaluatedAt: after })).toEqual(["final/late"]);
      }
    }
  });

  it("already failed, cancelled or stopped at dueAt: no outcome and no due notice (the user was told; a cancel is no missed promise)", () => {
    for (const status of ["failed", "cancelled", "deadline_exceeded"]) {
      const ev = evaluateDue(facts({ status, latestPublicationId: "P" }), noOvertime);
      expect(ev).toEqual({ outcome: null, notice: null, stop: false });
    }
  });
});

describe("planned notices", () => {
  it("no contract: terminal facts notify at once", () => {
    expect(
      keys(facts({ mode: "none", dueAt: null, status: "succeeded", completedAt: before, finalPublicationId: "F" })),
    ).toEqual(["final/done"]);
    expect(keys(facts({ mode: "none", dueAt: null, status: "failed" }))).toEqual(["failed/failed"]);
    expect(keys(facts({ mode: "none", dueAt: null, status: "cancelled" }))).toEqual(["cancelled/cancelled"]);
    expect(keys(facts({ mode: "none", dueAt: null, status: "running" }))).toEqual([]);
  });

  it("at: a body finished early waits for dueAt (the due notice carries it)", () => {
    expect(keys(facts({ status: "succeeded", completedAt: before, finalPublicationId: "F" }))).toEqual([]);
    expect(
      keys(facts({ status: "succeeded", completedAt: before, finalPublicationId: "F", dueEvaluatedAt: due })),
    ).toEqual([]);
  });

  it("at: finishing after a missed dueAt adds a separate late final notice", () => {
    expect(
      keys(facts({ status: "succeeded", completedAt: after, dueEvaluatedAt: due, finalPublicationId: "F" })),
    ).toEqual(["final/late"]);
  });

  it("by: final as soon as it exists — early, on time in the last window, late after dueAt", () => {
    expect(keys(facts({ mode: "by", status: "succeeded", completedAt: before, finalPublicationId: "F" }))).toEqual([
      "final/early",
    ]);
    expect(
      keys(
        facts({
          mode: "by",
          status: "succeeded",
          completedAt: new Date(due.getTime() - 5_000),
          finalPublicationId: "F",
        }),
      ),
    ).toEqual(["final/on_time"]);
    expect(
      keys(
        facts({ mode: "by", status: "succeeded", completedAt: after, dueEvaluatedAt: due, finalPublicationId: "F" }),
      ),
    ).toEqual(["final/late"]);
  });

  it("failure and cancel never wait for dueAt; a deadline stop is told by its due notice only", () => {
    expect(keys(facts({ status: "failed" }))).toEqual(["failed/failed"]);
    expect(keys(facts({ mode: "by", status: "cancelled" }))).toEqual(["cancelled/cancelled"]);
    expect(keys(facts({ status: "deadline_exceeded", stoppedAtDeadline: true, dueEvaluatedAt: due }))).toEqual([]);
    expect(
      keys(
        facts({ status: "deadline_exceeded", stoppedInOvertime: true, dueEvaluatedAt: due, latestPublicationId: "P" }),
      ),
    ).toEqual(["stopped/stopped"]);
    // A user's cancel is a cancel even when the task had a deadline.
    expect(keys(facts({ mode: "at", status: "cancelled", dueEvaluatedAt: due }))).toEqual(["cancelled/cancelled"]);
  });

  it("byOutcome window is 10% of the promised duration, between 1 s and 60 s", () => {
    expect(byOutcome(new Date(due.getTime() - 59_000), created, due)).toBe("on_time");
    expect(byOutcome(new Date(due.getTime() - 61_000), created, due)).toBe("early");
    expect(byOutcome(new Date(due.getTime() + 1), created, due)).toBe("late");
  });
});
