import { env } from "@/lib/config/env";
import type { EmailNoticeMode } from "@/lib/contract/settings";

/**
 * The email outbox on the notice row (docs/state-machines.md#email-outbox), as
 * pure decisions. lib/email/sql.ts claims rows and stores a decision under the
 * lease; lib/email/send-notice-email.ts does the SMTP side effect between them.
 *
 * Columns: emailState, emailLeaseOwner/Token/Until (the lease), emailAttempts
 * (SMTP attempts begun, counted before the attempt), emailNextAt (when the row
 * is due again), emailError (why it last failed or was skipped), emailSentAt.
 *
 *  #    from                    event                                       to           guard / effect
 *  ---  ----------------------  ------------------------------------------  -----------  -------------------------------------------
 *  E1   (insert)                notice written, the account wants it and     pending      next=now; otherwise the row stays none
 *                               its address is verified (same transaction)                (none is final: later changes of the
 *                                                                                         setting never reach old notices)
 *  E2   pending|retry|sending   claim, attempts ≥ MAX_EMAIL_ATTEMPTS        dead_letter  next cleared; the error says how many
 *  E3   pending|retry|sending   claim, account no longer wants it (setting  skipped      error says why; not counted
 *                               changed, unsubscribed), its address is not
 *                               verified, the conversation
 *                               or account is gone, or the notice is older
 *                               than STALE_AFTER_MS (SMTP was off meanwhile)
 *  E4   pending|retry|sending   claim, a tab of the account was open at or   skipped      "seen in a tab": the notice reached the
 *                               after the notice (presenceAt ≥ createdAt)                 user where they were
 *  E5   pending|retry|sending   claim, the last tab closed less than away    (unchanged)  next = presenceAt + away; lease freed;
 *                               seconds ago                                               not counted
 *  E6   pending|retry|sending   claim, account away                          sending      attempts+1, committed BEFORE the SMTP call
 *  E7   sending                 SMTP server answered 250                     sent         sentAt=now, error cleared, lease freed
 *  E8   sending                 transient failure (4xx, connection, timeout)  retry        next = backoff(attempts), error kept
 *                               and attempts < MAX
 *  E9   sending                 permanent failure (5xx, no recipient), or    dead_letter  logged; herald_email_dead_letters gauge
 *                               transient with attempts ≥ MAX
 *  E10  any claimed             worker stopping before the SMTP call         (unchanged)  lease freed, next=now, not counted
 *  E11  sending                 worker died after E6 (lease expires)         → E2..E6     the next claim decides again; an E6 there
 *                                                                                         re-sends with the same Message-ID
 *
 * Every write after the claim is fenced by the lease token, the lease being
 * alive and the state the claim saw; a miss drops the result (someone else
 * owns the row). Exactly once is therefore "at most one resend, and only if a
 * worker dies between the server's 250 and the E7 commit"; the resend carries
 * the same deterministic Message-ID, which mail clients collapse.
 */

/** notice.emailState (CHECK notice_emailState_check); SQL builds its lists from these. */
export const EMAIL_STATES = ["none", "pending", "sending", "retry", "sent", "skipped", "dead_letter"] as const;
export type EmailState = (typeof EMAIL_STATES)[number];
export const EMAIL_CLAIMABLE: readonly EmailState[] = ["pending", "sending", "retry"];
export const MAX_EMAIL_ATTEMPTS = 5;
export const MAX_EMAIL_ERROR_CHARS = 1000;
/** A notice that waited this long (no SMTP_URL for a while) is no longer news. */
export const STALE_AFTER_MS = 24 * 3600 * 1000;

export type EmailTransition = "E2" | "E3" | "E4" | "E5" | "E6" | "E7" | "E8" | "E9" | "E10";

export interface EmailPatch {
  emailState?: EmailState;
  emailAttempts?: number;
  emailError?: string | null;
  /** Delay from the database clock; null clears the schedule. */
  nextInMs?: number | null;
  /** An absolute due time (E5), from database values. */
  nextAt?: Date;
  sent?: true;
  releaseLease?: true;
}

export interface EmailDecision {
  t: EmailTransition;
  patch: EmailPatch;
}

/** Notices that tell how a task ended (lib/delivery/contract.ts keys); due and input notices are not. */
const TERMINAL_KEYS = new Set(["final", "failed", "cancelled", "stopped"]);
export const isTerminalNoticeKey = (key: string): boolean => TERMINAL_KEYS.has(key);

/**
 * E1's policy. `timed`: every notice of an at/by task. `all`: those, and the
 * terminal notice of any task. Input requests of untimed tasks are never mailed.
 */
export function wantsEmail(mode: EmailNoticeMode, notice: { timed: boolean; key: string }): boolean {
  if (mode === "off") return false;
  if (notice.timed) return true;
  return mode === "all" && isTerminalNoticeKey(notice.key);
}

/** The account modes that want this notice, for E1's one-statement enqueue. */
export function modesWanting(notice: { timed: boolean; key: string }): EmailNoticeMode[] {
  return (["timed", "all"] as const).filter((m) => wantsEmail(m, notice));
}

export const awayMs = () => env("HERALD_EMAIL_AWAY_SECONDS") * 1000;
// The email loop shares the notification outbox's pacing: one set of knobs for "tell the user".
export const emailIntervalMs = () => env("HERALD_NOTIFY_INTERVAL_MS");
export const emailMaxBackoffMs = () => env("HERALD_NOTIFY_MAX_BACKOFF_MS");
export const emailLeaseMs = () => env("HERALD_NOTIFY_LEASE_MS");

/** After f attempts: min(interval × 2^(f-1), cap), so the first retry waits one interval. */
export function emailBackoffMs(attempts: number, interval = emailIntervalMs(), cap = emailMaxBackoffMs()): number {
  return Math.min(interval * 2 ** Math.min(Math.max(attempts - 1, 0), 16), cap);
}

const bound = (s: string) => (s.length > MAX_EMAIL_ERROR_CHARS ? s.slice(0, MAX_EMAIL_ERROR_CHARS) : s);

/** What a claim sees: the locked notice, its account and the database clock. */
export interface ClaimView {
  attempts: number;
  lastError: string | null;
  noticeCreatedAt: Date;
  /** The account's current setting; null when the account is gone. */
  mode: EmailNoticeMode | null;
  /** The address was proven by its verification link: nothing is mailed to any other. */
  verified: boolean;
  timed: boolean;
  key: string;
  conversationLive: boolean;
  presenceAt: Date | null;
  dbNow: Date;
  awayMs: number;
}

/** E2–E6: what to do with a row just claimed. */
export function decideOnClaim(v: ClaimView): EmailDecision {
  if (v.attempts >= MAX_EMAIL_ATTEMPTS) {
    const previous = v.lastError ? `: ${v.lastError}` : "";
    return {
      t: "E2",
      patch: {
        emailState: "dead_letter",
        emailError: bound(`gave up after ${v.attempts} attempts${previous}`),
        nextInMs: null,
        releaseLease: true,
      },
    };
  }
  const skip = (t: "E3" | "E4", why: string): EmailDecision => ({
    t,
    patch: { emailState: "skipped", emailError: why, nextInMs: null, releaseLease: true },
  });
  if (v.mode === null) return skip("E3", "account deleted");
  if (!v.verified) return skip("E3", "email address not verified");
  if (!v.conversationLive) return skip("E3", "conversation deleted");
  if (!wantsEmail(v.mode, { timed: v.timed, key: v.key })) return skip("E3", `email setting is now ${v.mode}`);
  if (v.dbNow.getTime() - v.noticeCreatedAt.getTime() > STALE_AFTER_MS) return skip("E3", "too old to send");
  if (v.presenceAt !== null && v.presenceAt.getTime() >= v.noticeCreatedAt.getTime())
    return skip("E4", "seen in a tab");
  if (v.presenceAt !== null) {
    const awayAt = v.presenceAt.getTime() + v.awayMs;
    if (awayAt > v.dbNow.getTime()) return { t: "E5", patch: { nextAt: new Date(awayAt), releaseLease: true } };
  }
  return { t: "E6", patch: { emailState: "sending", emailAttempts: v.attempts + 1 } };
}

export type SendOutcome = { ok: true } | { ok: false; permanent: boolean; error: string };

/** E7–E9: record what the SMTP server said. `attempts` already counts this attempt (E6). */
export function decideAfterSend(attempts: number, outcome: SendOutcome): EmailDecision {
  if (outcome.ok)
    return { t: "E7", patch: { emailState: "sent", emailError: null, sent: true, nextInMs: null, releaseLease: true } };
  if (outcome.permanent || attempts >= MAX_EMAIL_ATTEMPTS) {
    const why = outcome.permanent ? outcome.error : `gave up after ${attempts} attempts: ${outcome.error}`;
    return {
      t: "E9",
      patch: { emailState: "dead_letter", emailError: bound(why), nextInMs: null, releaseLease: true },
    };
  }
  return {
    t: "E8",
    patch: {
      emailState: "retry",
      emailError: bound(outcome.error),
      nextInMs: emailBackoffMs(attempts),
      releaseLease: true,
    },
  };
}

/** E10. */
export function onStopping(): EmailDecision {
  return { t: "E10", patch: { nextInMs: 0, releaseLease: true } };
}

/**
 * SMTP replies: 5xx is permanent (RFC 5321 §4.2.1), 4xx and anything without a
 * reply code (connection refused, timeout, TLS) is worth another try.
 */
export function isPermanentSmtpFailure(err: { responseCode?: number; code?: string }): boolean {
  if (typeof err.responseCode === "number") return err.responseCode >= 500 && err.responseCode < 600;
  // nodemailer's own refusals before talking to a server: no recipient, bad address.
  return err.code === "EENVELOPE" || err.code === "EMESSAGE";
}
