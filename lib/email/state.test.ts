import { describe, expect, it } from "vitest";
import {
  decideAfterSend,
  decideOnClaim,
  emailBackoffMs,
  isPermanentSmtpFailure,
  MAX_EMAIL_ATTEMPTS,
  modesWanting,
  STALE_AFTER_MS,
  wantsEmail,
  type ClaimView,
} from "./state";

const t0 = new Date("2026-11-30T12:00:00Z");
const at = (s: number) => new Date(t0.getTime() + s * 1000);
const view = (over: Partial<ClaimView> = {}): ClaimView => ({
  attempts: 0,
  lastError: null,
  noticeCreatedAt: t0,
  mode: "timed",
  verified: true,
  timed: true,
  key: "due",
  conversationLive: true,
  presenceAt: null,
  dbNow: at(1),
  awayMs: 300_000,
  ...over,
});

describe("E1: which notices an account wants", () => {
  it("timed: every notice of an at/by task, nothing of an untimed one", () => {
    expect(wantsEmail("timed", { timed: true, key: "due" })).toBe(true);
    expect(wantsEmail("timed", { timed: true, key: "input:2" })).toBe(true);
    expect(wantsEmail("timed", { timed: false, key: "final" })).toBe(false);
  });
  it("all: timed ones plus terminal notices of any task, never an untimed input request", () => {
    for (const key of ["final", "failed", "cancelled", "stopped"])
      expect(wantsEmail("all", { timed: false, key })).toBe(true);
    expect(wantsEmail("all", { timed: false, key: "input:1" })).toBe(false);
    expect(wantsEmail("all", { timed: true, key: "due" })).toBe(true);
  });
  it("off: nothing", () => {
    expect(wantsEmail("off", { timed: true, key: "due" })).toBe(false);
    expect(modesWanting({ timed: true, key: "due" })).toEqual(["timed", "all"]);
    expect(modesWanting({ timed: false, key: "final" })).toEqual(["all"]);
    expect(modesWanting({ timed: false, key: "input:1" })).toEqual([]);
  });
});

describe("E2–E6: a claimed notice", () => {
  it("E6: never seen and away → sending, the attempt counted before the send", () => {
    expect(decideOnClaim(view())).toEqual({ t: "E6", patch: { emailState: "sending", emailAttempts: 1 } });
    // Last tab closed long before the notice.
    expect(decideOnClaim(view({ presenceAt: at(-400), dbNow: at(1) })).t).toBe("E6");
  });
  it("E4: a tab open at or after the notice → skipped as seen", () => {
    const d = decideOnClaim(view({ presenceAt: at(0) }));
    expect(d.t).toBe("E4");
    expect(d.patch).toMatchObject({ emailState: "skipped", emailError: "seen in a tab", releaseLease: true });
    expect(decideOnClaim(view({ presenceAt: at(5), dbNow: at(10) })).t).toBe("E4");
  });
  it("E5: the last tab closed less than away ago → wait until presenceAt + away, not counted", () => {
    const d = decideOnClaim(view({ presenceAt: at(-10), dbNow: at(1) }));
    expect(d).toEqual({ t: "E5", patch: { nextAt: at(290), releaseLease: true } });
    // At that moment, still away → send.
    expect(decideOnClaim(view({ presenceAt: at(-10), dbNow: at(290) })).t).toBe("E6");
  });
  it("E3: setting changed, unsubscribed, conversation or account gone, or stale → skipped", () => {
    expect(decideOnClaim(view({ mode: "off" })).patch).toMatchObject({
      emailState: "skipped",
      emailError: "email setting is now off",
    });
    expect(decideOnClaim(view({ mode: "timed", timed: false, key: "final" })).t).toBe("E3");
    expect(decideOnClaim(view({ mode: null })).patch.emailError).toBe("account deleted");
    expect(decideOnClaim(view({ conversationLive: false })).patch.emailError).toBe("conversation deleted");
    // An address nobody proved is never mailed, whatever the setting says (one set before verification was asked for).
    expect(decideOnClaim(view({ verified: false })).patch).toMatchObject({
      emailState: "skipped",
      emailError: "email address not verified",
    });
    expect(decideOnClaim(view({ dbNow: new Date(t0.getTime() + STALE_AFTER_MS + 1) })).patch.emailError).toBe(
      "too old to send",
    );
  });
  it("E2: budget spent (e.g. crashes mid-send) → dead letter before anything else", () => {
    const d = decideOnClaim(view({ attempts: MAX_EMAIL_ATTEMPTS, lastError: "SMTP 451", presenceAt: at(0) }));
    expect(d.t).toBe("E2");
    expect(d.patch).toMatchObject({
      emailState: "dead_letter",
      emailError: `gave up after ${MAX_EMAIL_ATTEMPTS} attempts: SMTP 451`,
    });
  });
});

describe("E7–E9: what the SMTP server said", () => {
  it("E7: 250 → sent", () => {
    expect(decideAfterSend(1, { ok: true })).toMatchObject({
      t: "E7",
      patch: { emailState: "sent", sent: true, emailError: null },
    });
  });
  it("E8: transient → retry with doubling backoff from one interval", () => {
    const d = decideAfterSend(1, { ok: false, permanent: false, error: "SMTP 451" });
    expect(d.t).toBe("E8");
    expect(d.patch).toMatchObject({ emailState: "retry", emailError: "SMTP 451", nextInMs: emailBackoffMs(1) });
    expect([1, 2, 3].map((a) => emailBackoffMs(a, 1000, 10_000))).toEqual([1000, 2000, 4000]);
    expect(emailBackoffMs(20, 1000, 10_000)).toBe(10_000);
  });
  it("E9: permanent, or transient with the budget spent → dead letter", () => {
    expect(decideAfterSend(1, { ok: false, permanent: true, error: "SMTP 550" }).patch).toMatchObject({
      emailState: "dead_letter",
      emailError: "SMTP 550",
    });
    const last = decideAfterSend(MAX_EMAIL_ATTEMPTS, { ok: false, permanent: false, error: "SMTP 451" });
    expect(last.t).toBe("E9");
    expect(last.patch.emailError).toMatch(/gave up after 5 attempts/);
  });
  it("SMTP replies: 5xx permanent, 4xx and connection errors transient", () => {
    expect(isPermanentSmtpFailure({ responseCode: 550 })).toBe(true);
    expect(isPermanentSmtpFailure({ responseCode: 451 })).toBe(false);
    expect(isPermanentSmtpFailure({ code: "ECONNREFUSED" })).toBe(false);
    expect(isPermanentSmtpFailure({ code: "EENVELOPE" })).toBe(true);
  });
});
