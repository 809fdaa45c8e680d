import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { startTask } from "@/lib/tasks/start-task";
import type { DeliveryContract } from "@/lib/contract/schemas";
import { collectMetrics } from "@/lib/metrics/collect";
import * as settingsRoute from "@/app/api/settings/route";
import * as eventsRoute from "@/app/api/events/route";
import * as unsubscribeRoute from "@/app/api/email/unsubscribe/route";
import {
  call,
  createConversationFor,
  ORIGIN,
  signUp,
  startWorkerProcess,
  stopWorkers,
  waitFor,
  type TestUser,
  type WorkerProc,
} from "@/tests/helpers";
import { startSmtpSink, type SinkLine, type SmtpSink } from "@/tests/smtp-sink-process";

/**
 * The email outbox against a real SMTP server process (tests/smtp-sink.ts) and
 * real worker processes. Away is 2 s here; the notification interval (the
 * email backoff's base) 300 ms.
 */
let sink: SmtpSink;
let lines: SinkLine[] = [];
let smtpUrl = "";
const workers: WorkerProc[] = [];
const AWAY_S = 2;
const workerEnv = () => ({
  SMTP_URL: smtpUrl,
  HERALD_EMAIL_FROM: "Herald Test <herald@example.test>",
  HERALD_EMAIL_AWAY_SECONDS: String(AWAY_S),
  HERALD_NOTIFY_INTERVAL_MS: "300",
  HERALD_NOTIFY_LEASE_MS: "3000",
  HERALD_POLL_MS: "300",
});

beforeAll(async () => {
  // Feeds opened here touch presence every away/3 s, as a web process with the same setting would.
  process.env.HERALD_EMAIL_AWAY_SECONDS = String(AWAY_S);
  sink = await startSmtpSink();
  lines = sink.lines;
  smtpUrl = sink.url;
  workers.push(startWorkerProcess(workerEnv()));
});

afterAll(async () => {
  await stopWorkers(...workers);
  sink?.stop();
});

const db = () => getDb();
const received = (to: string) => lines.filter((l) => l.to === to && l.accepted);
const attempts = (to: string) => lines.filter((l) => l.to === to && l.accepted !== undefined);

async function userWith(name: string, emailNotices: "off" | "timed" | "all"): Promise<TestUser> {
  const u = await signUp(name);
  // As if the sign-up's verification link had been opened (lib/settings/email-verification.int.test.ts).
  await db().user.update({ where: { id: u.id }, data: { emailVerified: true } });
  const res = await call(settingsRoute.PATCH, { user: u, method: "PATCH", body: { emailNotices } });
  expect(res.status).toBe(200);
  expect(res.json.emailNotices).toBe(emailNotices);
  return u;
}

async function launch(u: TestUser, delivery?: DeliveryContract, title = "Holdings overlap") {
  const conv = await createConversationFor(u);
  const { task } = await startTask({
    ownerId: u.id,
    conversationId: conv,
    title,
    prompt: "p",
    clientRequestId: randomUUID(),
    options: { simulate: { steps: 1, stepMs: 0 } },
    ...(delivery ? { delivery } : {}),
  });
  return { taskId: task.id, conv };
}

const noticesOf = (taskId: string) => db().notice.findMany({ where: { taskId }, orderBy: { createdAt: "asc" } });
const settledNotice = (taskId: string, states = ["sent", "skipped", "dead_letter"]) =>
  waitFor(
    async () => {
      const ns = await noticesOf(taskId);
      return ns.length > 0 && ns.every((n) => states.includes(n.emailState)) ? ns : null;
    },
    40_000,
    `notices of ${taskId} settled (${states.join("/")})`,
  );

/** An open feed is an open tab (lib/events/presence.ts). */
async function openTab(u: TestUser): Promise<() => Promise<void>> {
  const ac = new AbortController();
  const res = await eventsRoute.GET(
    new Request(`${ORIGIN}/api/events`, { headers: { cookie: u.cookie }, signal: ac.signal }),
  );
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  void (async () => {
    for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return;
  })();
  await waitFor(
    async () => (await db().user.findUniqueOrThrow({ where: { id: u.id } })).presenceAt,
    5_000,
    "presence touched",
  );
  return async () => {
    ac.abort();
    await reader.cancel().catch(() => {});
  };
}

describe("notice email", () => {
  it("away: one email per notice of a timed task, linking the conversation at the notice, with unsubscribe headers", async () => {
    const u = await userWith("Away", "timed");
    const { taskId, conv } = await launch(u, { mode: "at", dueInSeconds: 2 });
    // Finished early or late, an at-task has one or two notices (due, then a late final): wait for the task to settle.
    await waitFor(
      async () => {
        const t = await db().task.findUniqueOrThrow({ where: { id: taskId } });
        return t.status === "succeeded" && t.dueEvaluatedAt !== null;
      },
      40_000,
      "task finished and due evaluated",
    );
    const ns = await settledNotice(taskId);
    expect(ns.map((n) => [n.emailState, n.emailAttempts])).toEqual(ns.map(() => ["sent", 1]));
    const mails = received(u.email);
    expect(mails.map((m) => m.messageId).sort()).toEqual(ns.map((n) => `<notice.${n.id}@localhost>`).sort());
    const n = ns[0];
    const mail = mails.find((m) => m.messageId === `<notice.${n.id}@localhost>`)!;
    expect(mail.headers!.subject).toBe("Herald: Holdings overlap");
    expect(mail.headers!.from).toContain("herald@example.test");
    expect(mail.headers!["list-unsubscribe-post"]).toBe("List-Unsubscribe=One-Click");
    expect(mail.headers!["list-unsubscribe"]).toMatch(
      /^<http:\/\/localhost:\d+\/api\/email\/unsubscribe\?token=[\w.%-]+>$/,
    );
    expect(mail.text).toContain(n.text);
    expect(mail.text).toContain(`/c/${conv}#notice-${n.id}`);
    expect(mail.text).toMatch(/\/unsubscribe\?token=/);
    // An untimed task's notice is not wanted under "timed".
    const untimed = await launch(u, undefined, "Untimed");
    await waitFor(async () => (await noticesOf(untimed.taskId)).length > 0, 30_000, "untimed final notice");
    expect((await noticesOf(untimed.taskId)).map((x) => x.emailState)).toEqual(["none"]);
  });

  it("unverified address: never mailed, even where the setting was stored before verification was asked for", async () => {
    const u = await signUp("Unverified");
    await db().user.update({ where: { id: u.id }, data: { emailNotices: "all" } });
    const { taskId } = await launch(u, { mode: "by", dueInSeconds: 60 }, "Mail a stranger");
    const [n] = await waitFor(
      async () => {
        const ns = await noticesOf(taskId);
        return ns.length > 0 ? ns : null;
      },
      30_000,
      "notice written",
    );
    // E1 does not queue it…
    expect(n.emailState).toBe("none");
    // …and a notice queued anyway (before the check existed) is skipped at its claim.
    await db().notice.update({
      where: { id: n.id },
      data: { emailState: "pending", emailNextAt: new Date(Date.now() - 1000) },
    });
    const [skipped] = await settledNotice(taskId);
    expect([skipped.emailState, skipped.emailError, skipped.emailAttempts]).toEqual([
      "skipped",
      "email address not verified",
      0,
    ]);
    expect(attempts(u.email)).toHaveLength(0);
  });

  it("all: terminal notices of untimed tasks too", async () => {
    const u = await userWith("Everything", "all");
    const { taskId } = await launch(u, undefined, "Plain research");
    const [n] = await settledNotice(taskId);
    expect([n.key, n.emailState]).toEqual(["final", "sent"]);
    expect(received(u.email).map((m) => m.messageId)).toEqual([`<notice.${n.id}@localhost>`]);
  });

  it("present: a notice that arrives while a tab is open is skipped as seen; none is sent", async () => {
    const u = await userWith("Present", "timed");
    const close = await openTab(u);
    try {
      const { taskId } = await launch(u, { mode: "by", dueInSeconds: 60 });
      const [n] = await settledNotice(taskId);
      expect([n.emailState, n.emailError]).toEqual(["skipped", "seen in a tab"]);
      expect(n.emailAttempts).toBe(0);
    } finally {
      await close();
    }
    expect(attempts(u.email)).toHaveLength(0);
  });

  it("recently left: waits until the last tab has been closed for away seconds, then sends", async () => {
    const u = await userWith("Left", "timed");
    const close = await openTab(u);
    await close();
    const closedAt = await waitFor(
      async () => {
        const p = (await db().user.findUniqueOrThrow({ where: { id: u.id } })).presenceAt;
        // The close touch lands after the open one.
        return p;
      },
      5_000,
      "presence",
    );
    const { taskId } = await launch(u, { mode: "by", dueInSeconds: 30 });
    const [n] = await settledNotice(taskId);
    expect(n.emailState).toBe("sent");
    const presenceAt = (await db().user.findUniqueOrThrow({ where: { id: u.id } })).presenceAt!;
    expect(presenceAt.getTime()).toBeGreaterThanOrEqual(closedAt.getTime());
    expect(n.createdAt.getTime()).toBeGreaterThan(presenceAt.getTime());
    // Not before the account had been away for AWAY_S (both times from the database clock).
    expect(n.emailSentAt!.getTime()).toBeGreaterThanOrEqual(presenceAt.getTime() + AWAY_S * 1000);
    expect(received(u.email)).toHaveLength(1);
  });

  it("4xx: retried with growing backoff until the server accepts; one email delivered", async () => {
    const u = await userWith("Tempfail", "timed");
    const { taskId } = await launch(u, { mode: "by", dueInSeconds: 60 });
    const [n] = await settledNotice(taskId);
    expect(n.emailState).toBe("sent");
    expect(n.emailAttempts).toBe(3);
    const tries = attempts(u.email);
    expect(tries.map((l) => l.code ?? 250)).toEqual([451, 451, 250]);
    expect(new Set(tries.map((l) => l.messageId))).toEqual(new Set([`<notice.${n.id}@localhost>`]));
    // Backoff 300 ms then 600 ms (measured at the server, so a little slack for the round trip).
    expect(tries[1].at - tries[0].at).toBeGreaterThanOrEqual(250);
    expect(tries[2].at - tries[1].at).toBeGreaterThanOrEqual(550);
    expect(received(u.email)).toHaveLength(1);
  });

  it("5xx: dead letter at once, visible to the operator", async () => {
    const u = await userWith("Permfail", "timed");
    const { taskId } = await launch(u, { mode: "by", dueInSeconds: 60 });
    const [n] = await settledNotice(taskId);
    expect([n.emailState, n.emailError, n.emailAttempts]).toEqual(["dead_letter", "SMTP 550", 1]);
    expect(attempts(u.email)).toHaveLength(1);
    await waitFor(async () => workers[0].output().includes(`dead letter: notice ${n.id}`), 5_000, "dead letter logged");
    const metrics = await collectMetrics();
    const gauge = /^herald_email_dead_letters (\d+)$/m.exec(metrics);
    expect(Number(gauge?.[1])).toBeGreaterThanOrEqual(1);
  });

  it("unsubscribe: the link works without a session, and stops what is still queued", async () => {
    const u = await userWith("Unsub", "timed");
    const { taskId } = await launch(u, { mode: "by", dueInSeconds: 60 });
    await settledNotice(taskId);
    const [mail] = received(u.email);
    const oneClick = /^<(.+)>$/.exec(mail.headers!["list-unsubscribe"])![1];
    const path = new URL(oneClick).pathname + new URL(oneClick).search;
    const token = new URL(oneClick).searchParams.get("token")!;
    expect(mail.text).toContain(`/unsubscribe?token=${encodeURIComponent(token)}`);

    // GET (link scanners) changes nothing.
    const get = await unsubscribeRoute.GET(new Request(`${ORIGIN}${path}`));
    expect(get.status).toBe(303);
    expect(get.headers.get("location")).toBe(`/unsubscribe?token=${encodeURIComponent(token)}`);
    expect((await db().user.findUniqueOrThrow({ where: { id: u.id } })).emailNotices).toBe("timed");

    // A forged or foreign token does nothing.
    const forged = `${token.split(".")[0]}.${"A".repeat(43)}`;
    const bad = await unsubscribeRoute.POST(
      new Request(`${ORIGIN}/api/email/unsubscribe?token=${forged}`, {
        method: "POST",
        body: "List-Unsubscribe=One-Click",
      }),
    );
    expect(bad.status).toBe(404);
    expect((await db().user.findUniqueOrThrow({ where: { id: u.id } })).emailNotices).toBe("timed");

    // RFC 8058 one-click: no cookie, no Origin.
    const post = await unsubscribeRoute.POST(
      new Request(`${ORIGIN}${path}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "List-Unsubscribe=One-Click",
      }),
    );
    expect(post.status).toBe(200);
    expect((await db().user.findUniqueOrThrow({ where: { id: u.id } })).emailNotices).toBe("off");
    const settings = await call(settingsRoute.GET, { user: u });
    expect(settings.json.emailNotices).toBe("off");

    // The confirm page's form: a redirect to the done page.
    const form = await unsubscribeRoute.POST(new Request(`${ORIGIN}${path}`, { method: "POST", body: "" }));
    expect([form.status, form.headers.get("location")]).toEqual([303, "/unsubscribe?done=1"]);

    // Nothing more is mailed once off.
    const later = await launch(u, { mode: "by", dueInSeconds: 60 });
    await waitFor(async () => (await noticesOf(later.taskId)).length > 0, 30_000, "later notice");
    expect((await noticesOf(later.taskId)).map((x) => x.emailState)).toEqual(["none"]);
  });

  it(
    "SIGKILL between the server's 250 and the commit: resent once with the same Message-ID, recorded as sent",
    { timeout: 90_000 },
    async () => {
      await stopWorkers(...workers.splice(0));
      const crashing = startWorkerProcess({ ...workerEnv(), HERALD_TEST_EMAIL_PAUSE_AFTER_SEND_MS: "60000" });
      workers.push(crashing);
      const u = await userWith("Crash", "timed");
      const { taskId } = await launch(u, { mode: "by", dueInSeconds: 60 });
      const n = await waitFor(async () => (await noticesOf(taskId))[0], 30_000, "notice written");
      await waitFor(
        async () => crashing.output().includes(`test pause after send ${n.id}`),
        30_000,
        "sent, not yet recorded",
      );
      expect(received(u.email)).toHaveLength(1);
      const mid = await db().notice.findUniqueOrThrow({ where: { id: n.id } });
      expect([mid.emailState, mid.emailAttempts]).toEqual(["sending", 1]);
      crashing.child.kill("SIGKILL");
      await crashing.exited;

      workers.push(startWorkerProcess(workerEnv()));
      const [done] = await settledNotice(taskId);
      expect([done.emailState, done.emailAttempts]).toEqual(["sent", 2]);
      const mails = received(u.email);
      // The one duplicate this design allows, and it carries the same Message-ID.
      expect(mails).toHaveLength(2);
      expect(new Set(mails.map((m) => m.messageId))).toEqual(new Set([`<notice.${n.id}@localhost>`]));
    },
  );

  it("the resend window (server's 250 → our commit) is short: measured over every email of this file", async () => {
    const accepted = lines.filter((l) => l.accepted && l.messageId);
    const ids = accepted.map((l) => /^<notice\.(.+)@/.exec(l.messageId!)![1]);
    const rows = await db().notice.findMany({ where: { id: { in: ids }, emailState: "sent" } });
    const windows = rows
      .map((r) => {
        // The last acceptance is the one the commit recorded (a crash test's first one was never recorded).
        const last = accepted.filter((l) => l.messageId === `<notice.${r.id}@localhost>`).at(-1)!;
        return r.emailSentAt!.getTime() - last.at;
      })
      .sort((a, b) => a - b);
    expect(windows.length).toBeGreaterThanOrEqual(6);
    const p50 = windows[Math.floor(windows.length / 2)];
    const max = windows.at(-1)!;
    console.log(`[email] 250 → commit window over ${windows.length} emails: p50 ${p50} ms, max ${max} ms`);
    // Same host, two clocks (the sink's and the database's): a window of a few ms either side of zero.
    expect(max).toBeLessThan(1_000);
  });
});
