import { z } from "zod";
import { env } from "@/lib/config/env";
import type { Task } from "@/lib/db/generated/client.ts";
import { DELIVERY_MODES, DELIVERY_OUTCOMES, TASK_STATUSES, type TaskStatus } from "@/lib/contract/task";

/**
 * The notification outbox state machine (docs/state-machines.md#notification-outbox), as pure decisions.
 *
 * Every function here reads the *locked, current* task row and returns a patch;
 * lib/notify/sql.ts applies it under the lease guard and lib/notify/deliver.ts
 * does the side effects. Keeping the decisions free of I/O is what lets each
 * transition be unit-tested by name.
 *
 * "In flight" = claimed | dispatched | retry. "Claimable" = pending | claimed |
 * dispatched | retry with eventVersion > notifiedVersion, due, lease free.
 * Counters: dispatchAttempt = narration runs of this version that demonstrably
 * failed (part of the run idempotency key); notificationAttempts = failures of
 * this version of any kind (the budget of MAX_NOTIFICATION_ATTEMPTS).
 *
 *  #    from                      event                                  to            guard / effect
 *  ---  ------------------------  -------------------------------------  ------------  ---------------------------------------------
 *  T1   none|pending|delivered|   new distinct event (fingerprint        pending       version+1; next=now; error, budget, dispatch
 *       dead_letter               changed) — recordEventAndAnnounce                    fields reset. The only way out of dead_letter.
 *  T1f  claimed|dispatched|retry  new distinct event                     (unchanged)   only fingerprint + version move; the frozen
 *                                                                                      dispatchEvent is never overwritten
 *  T1x  any                       event disappeared (snapshot null)      (unchanged)   fingerprint cleared, version kept, so the same
 *                                                                                      event recurring later is a new event
 *  T2   pending                   claim                                  claimed       rebuild dispatchEvent from the row; budget and
 *                                                                                      dispatchAttempt reset only if the version moved
 *  T3   claimed                   re-claim after lease expiry (crash)    claimed       same rebuild as T2
 *  T4   retry                     claim, dispatchVersion ≠ eventVersion  claimed       newer event supersedes the failed one: rebuild
 *                                                                                      + budget reset
 *  T5   retry                     claim, dispatchVersion = eventVersion  retry         no rebuild: same frozen event, next attempt
 *  T6   dispatched                claim                                  dispatched    no rebuild: look at the narration run
 *  T2x  pending|claimed|retry     claim, but the row has no event now    none          nothing left to say (e.g. input answered
 *                                 (rebuild yields null)                                before delivery); notifiedVersion=eventVersion
 *  T7   claimed|retry             notice written, narration run queued   dispatched    token mine, lease alive, dispatchVersion as
 *                                 (or an existing run with the key)                    claimed; runId set, error cleared, lease freed
 *  T7n  claimed|retry             notice written, no narration due       delivered     as T13 (or pending as T14 if a newer event)
 *                                 (narration off, or !narrates(event))
 *  T8   claimed|retry             conversation busy (a run queued or     pending       NOT counted; dispatchEvent cleared so the next
 *                                 running there)                                       claim rebuilds from the latest event; flat
 *                                                                                      interval
 *  T9   —                         (deer-flow: launch raised)             —             Herald's launch is one DB transaction, so a
 *                                                                                      failed launch leaves nothing behind: it is T16
 *  T10  claimed|retry|dispatched  conversation deleted (counted), or     dead_letter   only if eventVersion ≤ dispatchVersion; lease,
 *                                 budget exhausted at claim (attempts                  schedule and run id cleared; error says why
 *                                 ≥ 5, checked before any run exists)
 *  T11  claimed|retry|dispatched  same triggers as T10 with              pending       failed snapshot dropped, newer event kept:
 *                                 eventVersion > dispatchVersion                       budget/dispatch reset, next=now
 *  T12  dispatched                run queued|running                     dispatched    lease freed; re-check after the flat interval
 *                                                                                      (or sooner: a finished run makes it due)
 *  T13  dispatched                run succeeded, no newer event          delivered     notifiedVersion=dispatchVersion; budget and
 *                                                                                      dispatch cleared; next=null
 *  T14  dispatched                run succeeded, newer event exists      pending       as T13 but next=now for the newer version
 *  T15  dispatched                run failed|cancelled|missing           retry         dispatchAttempt+1 (new idempotency key),
 *                                                                                      attempts+1, backoff
 *  T16  claimed|retry|dispatched  unexpected exception                   (unchanged)   attempts+1, backoff, lease freed
 *  T17  claimed|retry|dispatched  worker stopping before work            (unchanged)   lease freed, due now, NOT counted
 *
 * Backoff after f failures of this version: min(interval × 2^min(f,16), cap),
 * measured from the database clock when the failure is recorded, i.e. after the
 * failed call finished.
 */

/** task.notificationStatus (CHECK task_notificationStatus_check); SQL builds its lists from these. */
export const NOTIFICATION_STATUSES = [
  "none",
  "pending",
  "claimed",
  "dispatched",
  "retry",
  "delivered",
  "dead_letter",
] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/**
 * The facts a notification may tell (lib/notify/event.ts `buildEventSnapshot`).
 * It crosses processes as JSON: frozen in the task row's `dispatchEvent`, kept
 * in the hidden narration prompt's meta (`narrationEvent`), framed into that
 * prompt for the model; readers parse it back through this schema. Its fields
 * are also the fingerprint: adding one makes every pending event look new.
 */
export const eventSnapshotSchema = z.object({
  taskId: z.string(),
  title: z.string(),
  status: z.enum(TASK_STATUSES as [TaskStatus, ...TaskStatus[]]),
  /** The task's stored sentence, at most EVENT_ERROR_CHARS. */
  error: z.string().nullable(),
  /** The remote's question while input_required, as it sent it; else null. */
  inputRequest: z.json().nullable(),
  latestPublicationId: z.string().nullable(),
  /** The `partial` flag of that publication; null when there is none or it is unknown. */
  latestPublicationPartial: z.boolean().nullable(),
  deliveryMode: z.enum(DELIVERY_MODES),
  dueAt: z.string().nullable(),
  deliveryOutcome: z.enum(DELIVERY_OUTCOMES).nullable(),
  cancelRequested: z.boolean(),
  /** Events frozen before degraded tracking was an event lack it. */
  trackingDegraded: z.boolean().default(false),
});
export type EventSnapshot = z.infer<typeof eventSnapshotSchema>;

/** A stored or framed event read back; null when absent or not an event this version understands. */
export function parseEventSnapshot(value: unknown): EventSnapshot | null {
  if (value === null || value === undefined) return null;
  const parsed = eventSnapshotSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

export const IN_FLIGHT: readonly NotificationStatus[] = ["claimed", "dispatched", "retry"];
export const CLAIMABLE: readonly NotificationStatus[] = ["pending", "claimed", "dispatched", "retry"];
export const MAX_NOTIFICATION_ATTEMPTS = 5;
/** Stored error text; the public projection bounds it further. */
export const MAX_NOTIFICATION_ERROR_CHARS = 4000;

// Read at call time so a test or an operator can change them without a reload.
export const notifyIntervalMs = () => env("HERALD_NOTIFY_INTERVAL_MS");
export const notifyMaxBackoffMs = () => env("HERALD_NOTIFY_MAX_BACKOFF_MS");
export const notifyLeaseMs = () => env("HERALD_NOTIFY_LEASE_MS");
export const narrationEnabled = () => env("HERALD_NARRATION") !== "off";

/**
 * Whether an event also gets a model-written narration turn, besides its host
 * notice. A timed promise is delivered by its notice alone: re-waking the model
 * at the due moment would cost requests and tell a second version of what was
 * published. A cancel is the user's own act, already said by the terminal line
 * and the notice. Questions and untimed results keep the narration turn. The
 * agent still sees every event (notices and terminal lines) in its next turn.
 */
export function narrates(event: Pick<EventSnapshot, "status" | "deliveryMode">): boolean {
  if (event.status === "input_required") return true;
  if (event.deliveryMode === "at" || event.deliveryMode === "by") return false;
  return event.status !== "cancelled" && event.status !== "deadline_exceeded";
}

export function backoffMs(failures: number, interval = notifyIntervalMs(), cap = notifyMaxBackoffMs()): number {
  return Math.min(interval * 2 ** Math.min(Math.max(failures, 0), 16), cap);
}

/** The outbox columns the decisions read. */
export type OutboxRow = Pick<
  Task,
  | "notificationStatus"
  | "eventFingerprint"
  | "eventVersion"
  | "notifiedVersion"
  | "dispatchVersion"
  | "dispatchAttempt"
  | "notificationAttempts"
  | "notificationError"
  | "notificationRunId"
>;

export interface OutboxPatch {
  notificationStatus?: NotificationStatus;
  eventFingerprint?: string | null;
  eventVersion?: number;
  notifiedVersion?: number;
  dispatchVersion?: number | null;
  dispatchAttempt?: number;
  dispatchEvent?: EventSnapshot | null;
  notificationRunId?: string | null;
  notificationError?: string | null;
  notificationAttempts?: number;
  /** Delay from the database clock; null clears the schedule. */
  nextInMs?: number | null;
  releaseLease?: true;
}

export type Transition =
  | "T1"
  | "T1f"
  | "T1x"
  | "T2"
  | "T2x"
  | "T3"
  | "T4"
  | "T5"
  | "T6"
  | "T7"
  | "T7n"
  | "T8"
  | "T10"
  | "T11"
  | "T12"
  | "T13"
  | "T14"
  | "T15"
  | "T16"
  | "T17";

export interface Decision {
  t: Transition;
  patch: OutboxPatch;
}

const inFlight = (s: string) => (IN_FLIGHT as readonly string[]).includes(s);
const boundError = (s: string) =>
  s.length > MAX_NOTIFICATION_ERROR_CHARS ? s.slice(0, MAX_NOTIFICATION_ERROR_CHARS) : s;

/** What a fresh version starts from: nothing dispatched, full budget. */
const FRESH: OutboxPatch = {
  notificationError: null,
  notificationAttempts: 0,
  dispatchVersion: null,
  dispatchAttempt: 0,
  dispatchEvent: null,
  notificationRunId: null,
};

/** A newer event than the one being delivered exists. */
const hasNewerEvent = (row: OutboxRow) => row.eventVersion > (row.dispatchVersion ?? row.notifiedVersion);

// ---- T1: recording events ----------------------------------------------------

export function onEvent(row: OutboxRow, fingerprint: string | null): Decision | null {
  if (fingerprint === null) {
    return row.eventFingerprint === null ? null : { t: "T1x", patch: { eventFingerprint: null } };
  }
  if (fingerprint === row.eventFingerprint) return null;
  const bump: OutboxPatch = { eventFingerprint: fingerprint, eventVersion: row.eventVersion + 1 };
  if (inFlight(row.notificationStatus)) return { t: "T1f", patch: bump };
  return { t: "T1", patch: { ...bump, ...FRESH, notificationStatus: "pending", nextInMs: 0 } };
}

// ---- T2–T6: claims -----------------------------------------------------------

/** Whether a claim refreshes the frozen event from the current row. */
export function claimStep(
  row: OutboxRow,
): { t: "T2" | "T3" | "T4"; rebuild: true } | { t: "T5" | "T6"; rebuild: false } {
  switch (row.notificationStatus) {
    case "pending":
      return { t: "T2", rebuild: true };
    case "claimed":
      return { t: "T3", rebuild: true };
    case "retry":
      return row.dispatchVersion !== row.eventVersion ? { t: "T4", rebuild: true } : { t: "T5", rebuild: false };
    default:
      return { t: "T6", rebuild: false };
  }
}

export function rebuildOnClaim(row: OutboxRow, t: "T2" | "T3" | "T4", snapshot: EventSnapshot | null): Decision {
  if (snapshot === null) {
    return {
      t: "T2x",
      patch: {
        ...FRESH,
        notificationStatus: "none",
        notifiedVersion: row.eventVersion,
        nextInMs: null,
        releaseLease: true,
      },
    };
  }
  const moved = row.dispatchVersion !== row.eventVersion;
  return {
    t,
    patch: {
      notificationStatus: "claimed",
      dispatchVersion: row.eventVersion,
      dispatchEvent: snapshot,
      notificationRunId: null,
      ...(moved ? { dispatchAttempt: 0, notificationAttempts: 0 } : {}),
    },
  };
}

export type NextAction = "exhausted" | "deliver" | "check_run" | "none";

/** What a claimed row needs. The budget is checked first, before any run is created or read. */
export function nextAction(row: OutboxRow): NextAction {
  if (!inFlight(row.notificationStatus)) return "none";
  if (row.notificationAttempts >= MAX_NOTIFICATION_ATTEMPTS) return "exhausted";
  return row.notificationStatus === "dispatched" ? "check_run" : "deliver";
}

// ---- T7/T8: dispatch -----------------------------------------------------------

export function onDispatched(runId: string): Decision {
  return {
    t: "T7",
    patch: {
      notificationStatus: "dispatched",
      notificationRunId: runId,
      notificationError: null,
      nextInMs: notifyIntervalMs(),
      releaseLease: true,
    },
  };
}

export function onBusy(): Decision {
  return {
    t: "T8",
    patch: {
      notificationStatus: "pending",
      dispatchEvent: null,
      notificationRunId: null,
      nextInMs: notifyIntervalMs(),
      releaseLease: true,
    },
  };
}

// ---- T10/T11: dead letters -------------------------------------------------------

export function deadLetter(row: OutboxRow, reason: string, opts: { countFailure: boolean }): Decision {
  if (hasNewerEvent(row)) {
    return { t: "T11", patch: { ...FRESH, notificationStatus: "pending", nextInMs: 0, releaseLease: true } };
  }
  return {
    t: "T10",
    patch: {
      notificationStatus: "dead_letter",
      notificationError: boundError(reason),
      notificationAttempts: row.notificationAttempts + (opts.countFailure ? 1 : 0),
      // The frozen event and its version stay for operators; T1 resets them on revival.
      notificationRunId: null,
      nextInMs: null,
      releaseLease: true,
    },
  };
}

export function onBudgetExhausted(row: OutboxRow): Decision {
  const previous = row.notificationError ? `: ${row.notificationError}` : "";
  return deadLetter(row, `Notification delivery stopped after ${row.notificationAttempts} failed attempts${previous}`, {
    countFailure: false,
  });
}

export const CONVERSATION_GONE = "The conversation was deleted; the notification was dropped";

export function onConversationGone(row: OutboxRow): Decision {
  return deadLetter(row, CONVERSATION_GONE, { countFailure: true });
}

// ---- T12–T15: the narration run ----------------------------------------------------

function delivered(row: OutboxRow, t: "T13" | "T7n"): Decision {
  const done: OutboxPatch = {
    ...FRESH,
    notifiedVersion: row.dispatchVersion ?? row.eventVersion,
    releaseLease: true,
  };
  if (hasNewerEvent(row)) {
    return { t: t === "T13" ? "T14" : "T7n", patch: { ...done, notificationStatus: "pending", nextInMs: 0 } };
  }
  // The run id stays on a delivered row: it is the narration the user read.
  return {
    t,
    patch: { ...done, notificationStatus: "delivered", notificationRunId: row.notificationRunId, nextInMs: null },
  };
}

export function onDeliveredWithoutNarration(row: OutboxRow): Decision {
  const d = delivered(row, "T7n");
  return { ...d, patch: { ...d.patch, notificationRunId: null } };
}

export function onRunOutcome(row: OutboxRow, run: { status: string; error: string | null } | null): Decision {
  if (run && (run.status === "queued" || run.status === "running")) {
    return { t: "T12", patch: { nextInMs: notifyIntervalMs(), releaseLease: true } };
  }
  if (run?.status === "succeeded") return delivered(row, "T13");
  const why = !run
    ? `Notification run ${row.notificationRunId ?? "(none)"} was not found`
    : `Notification run ${run.status}${run.error ? `: ${run.error}` : ""}`;
  return {
    t: "T15",
    patch: {
      notificationStatus: "retry",
      dispatchAttempt: row.dispatchAttempt + 1,
      notificationAttempts: row.notificationAttempts + 1,
      notificationRunId: null,
      notificationError: boundError(why),
      nextInMs: backoffMs(row.notificationAttempts),
      releaseLease: true,
    },
  };
}

// ---- T16/T17: failures and shutdown ------------------------------------------------

export function onUnexpectedError(row: OutboxRow, message: string): Decision {
  return {
    t: "T16",
    patch: {
      notificationAttempts: row.notificationAttempts + 1,
      notificationError: boundError(message || "Unexpected notification error"),
      nextInMs: backoffMs(row.notificationAttempts),
      releaseLease: true,
    },
  };
}

export function onShutdown(): Decision {
  return { t: "T17", patch: { nextInMs: 0, releaseLease: true } };
}

// ---- host notices ---------------------------------------------------------------------

export interface NoticePlan {
  key: string;
  outcome: string;
}

/**
 * The notice this module writes for an event: one per input request, keyed by
 * the event version so a second question is a second notice. Terminal and due
 * notices come from lib/delivery (written from the committed facts).
 */
export function planNotice(event: Pick<EventSnapshot, "status">, version: number): NoticePlan | null {
  return event.status === "input_required" ? { key: `input:${version}`, outcome: "input" } : null;
}

/** True when the patch changes what toPublicTask shows, i.e. worth a task.updated event. */
export function isVisible(before: OutboxRow, patch: OutboxPatch): boolean {
  return (
    (patch.notificationStatus !== undefined && patch.notificationStatus !== before.notificationStatus) ||
    (patch.notificationAttempts !== undefined && patch.notificationAttempts !== before.notificationAttempts) ||
    (patch.notificationError !== undefined && patch.notificationError !== before.notificationError)
  );
}
