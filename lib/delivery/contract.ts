import type { NoticeOutcome } from "@/lib/contract/shapes";
import { isTerminalStatus, type DeliveryMode } from "@/lib/contract/task";

/**
 * Timed delivery contracts (docs/state-machines.md#delivery-contracts) as one pure function: given
 * the committed facts of a task and the database time, which host notices must
 * exist. Completion, publication and the promised moment are separate facts;
 * notices only ever get added (unique key per task), never rewritten.
 *
 *   mode  moment                     facts                              notice (key / outcome)
 *   ----  -------------------------  ---------------------------------  -------------------------------------------
 *   none  terminal                   succeeded | failed | cancelled     final / done · failed · cancelled
 *   at    before dueAt               succeeded                          — (body readable now; notice waits for dueAt)
 *   at    at dueAt                   final published                    due / on_time → final body
 *   at    at dueAt                   partial or nothing, still running  due / missed → partial body if any
 *   at    at dueAt, no overtime      not final                          due / stopped (task is stopped, partials kept)
 *   at    after a missed dueAt       succeeded                          final / late
 *   by    completed ≤ dueAt          succeeded                          final / early (or on_time in the last window)
 *   by    at dueAt, report anyway    not final                          due / missed
 *   by    at dueAt, no report        not final                          — (outcome missed recorded)
 *   by    after dueAt                succeeded                          final / late
 *   any   overtime after a missed due  budget spent → stopped             stopped / stopped (partials kept)
 *   any   before dueAt               failed | cancelled                 failed · cancelled at once; the promise ends
 *                                                                       there (dueEvaluatedAt stamped, no outcome)
 *                                                                       and the due loop never judges it (sql.ts);
 *                                                                       a cancel's notice posts no message: its
 *                                                                       terminal line is that moment's one message
 *   any   stopped by its deadline    deadline_exceeded                  the due/stopped notice above, or stopped/stopped
 *
 * deliveryOutcome (on_time | early | missed) is written once: at due
 * evaluation, or at completion for a by-contract finished before its dueAt.
 */
export type Mode = DeliveryMode;

export interface ContractFacts {
  mode: Mode;
  dueAt: Date | null;
  createdAt: Date;
  reportIfUnfinished: boolean;
  status: string;
  completedAt: Date | null;
  /** Set once the due moment was evaluated; it fixes what happened at dueAt. */
  dueEvaluatedAt: Date | null;
  /** True when the due evaluation stopped the task (no overtime / budget spent). */
  stoppedAtDeadline: boolean;
  /** True when the task ran on after a missed dueAt and then spent its overtime budget. */
  stoppedInOvertime: boolean;
  finalPublicationId: string | null;
  latestPublicationId: string | null;
}

export interface NoticeSpec {
  key: string;
  outcome: NoticeOutcome;
  publicationId: string | null;
}

/** by-mode completions inside this window before dueAt count as on time rather than early. */
export function onTimeWindowMs(createdAt: Date, dueAt: Date): number {
  return Math.min(60_000, Math.max(1_000, (dueAt.getTime() - createdAt.getTime()) * 0.1));
}

export function byOutcome(completedAt: Date, createdAt: Date, dueAt: Date): "early" | "on_time" | "late" {
  if (completedAt.getTime() > dueAt.getTime()) return "late";
  return dueAt.getTime() - completedAt.getTime() <= onTimeWindowMs(createdAt, dueAt) ? "on_time" : "early";
}

export interface DueEvaluation {
  /**
   * deliveryOutcome to write once (a by-contract finished early keeps its own);
   * null when the task ended otherwise before its due moment: a cancel, a
   * failure or a deadline stop is not a missed promise.
   */
  outcome: "on_time" | "missed" | null;
  notice: NoticeSpec | null;
  /** Stop the research now: no overtime allowed, or its budget is spent. */
  stop: boolean;
}

/** What the due moment means for a task, decided once when the due loop evaluates it. */
export function evaluateDue(
  f: ContractFacts,
  overtime: { allowOvertime: boolean; budgetExceeded: boolean },
): DueEvaluation {
  if (f.finalPublicationId !== null) {
    // Finished after dueAt but before this evaluation ran: the promise was missed;
    // plannedNotices says so with final/late. by-contracts finished in time told the user already.
    if (f.completedAt && f.dueAt && f.completedAt.getTime() > f.dueAt.getTime())
      return { outcome: "missed", notice: null, stop: false };
    const notice: NoticeSpec | null =
      f.mode === "at" ? { key: "due", outcome: "on_time", publicationId: f.finalPublicationId } : null;
    return { outcome: "on_time", notice, stop: false };
  }
  const terminal = isTerminalStatus(f.status);
  if (terminal && f.status !== "succeeded") return { outcome: null, notice: null, stop: false };
  const stop = !terminal && (!overtime.allowOvertime || overtime.budgetExceeded);
  if (stop)
    return {
      outcome: "missed",
      notice: { key: "due", outcome: "stopped", publicationId: f.latestPublicationId },
      stop,
    };
  const silent = terminal || (f.mode === "by" && !f.reportIfUnfinished);
  return {
    outcome: "missed",
    notice: silent ? null : { key: "due", outcome: "missed", publicationId: f.latestPublicationId },
    stop,
  };
}

/** Notices that the committed facts call for right now (some may already exist). */
export function plannedNotices(f: ContractFacts): NoticeSpec[] {
  const out: NoticeSpec[] = [];
  if (f.status === "failed") out.push({ key: "failed", outcome: "failed", publicationId: f.latestPublicationId });
  // A deadline stop at the due moment told the user with its due notice; one later in overtime gets its own.
  if (f.status === "deadline_exceeded" && f.stoppedInOvertime)
    out.push({ key: "stopped", outcome: "stopped", publicationId: f.latestPublicationId });
  if (f.status === "cancelled")
    out.push({ key: "cancelled", outcome: "cancelled", publicationId: f.latestPublicationId });
  if (f.status !== "succeeded") return out;
  const pub = f.finalPublicationId ?? f.latestPublicationId;
  if (f.mode === "none" || !f.dueAt) {
    out.push({ key: "final", outcome: "done", publicationId: pub });
  } else if (f.mode === "by") {
    out.push({ key: "final", outcome: byOutcome(f.completedAt ?? f.dueAt, f.createdAt, f.dueAt), publicationId: pub });
  } else if (f.dueEvaluatedAt && f.completedAt && f.completedAt.getTime() > f.dueAt.getTime()) {
    // at: finished after its dueAt (the due notice said "not yet", or the evaluation came late).
    out.push({ key: "final", outcome: "late", publicationId: pub });
  }
  return out;
}

/**
 * Whether a notice of this key also posts a `notice` message in the
 * conversation. One moment is one message: a cancel is the user's own act, and
 * its terminal line ("… was cancelled; anything already published stays") says
 * it. Its notice row still exists (task details, email, the notice.created event).
 */
export function noticeInConversation(key: string): boolean {
  return key !== "cancelled";
}
