// The chaos harness (`npm run chaos`; a short fixed-seed profile runs in `npm test`):
// durable tasks of several accounts through the public API, while workers are
// SIGKILLed and restarted, PostgreSQL is restarted twice (a fast stop, then a
// SIGKILL of the postmaster) and the web process is killed once. Then it audits
// the database and every account's feed. See docs/development.md#chaos.

import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "@/lib/db/embedded";
import { applyMigrations } from "@/lib/db/migrate";
import { takeSseFrames } from "@/tests/sse";
import { isTerminalStatus, TERMINAL_STATUSES } from "@/lib/contract/task";
import { noticeInConversation } from "@/lib/delivery/contract";
import { RecoveryAudit } from "@/tests/chaos/recovery";
import type { ChaosProfile, ChaosReport } from "@/tests/chaos/report";
import { ChaosTrace } from "@/tests/chaos/trace";
import { Fleet } from "@/tests/chaos/fleet";
import { ROOT, signUp, type TestUser } from "@/tests/helpers";
import { testProcessArgs } from "@/tests/process-bundles";

/** Every lease in the chaos run (task execution, cancel, runs, notification): short, so recovery is quick and measured. */
const LEASE_MS = 2000;
const CONCURRENCY = 4;

export const SHORT_PROFILE: ChaosProfile = {
  seed: 20261130,
  accounts: 3,
  tasks: 36,
  workers: 3,
  killEveryMs: [1000, 3000],
  keepRunning: 1,
  steps: [1, 3],
  stepMs: [100, 400],
  settleMs: 150_000,
};

// Two workers keep running: with one, a 1,000-task backlog went several times slower (tests/chaos/fleet.ts).
export const FULL_PROFILE: ChaosProfile = {
  ...SHORT_PROFILE,
  seed: Date.now() % 2 ** 31,
  accounts: 8,
  tasks: 1000,
  keepRunning: 2,
  settleMs: 900_000,
};

/** Deterministic choices from the seed (the kills' timing still depends on the machine). */
function prng(seed: number) {
  let s = seed >>> 0 || 1;
  const next = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return {
    next,
    int: ([lo, hi]: [number, number]) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)],
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Web {
  url: string;
  proc: ChildProcess;
}

async function startWeb(env: NodeJS.ProcessEnv): Promise<Web> {
  const proc = spawn(process.execPath, testProcessArgs("web"), {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  proc.stderr!.on("data", (d) => (out = (out + d).slice(-4000)));
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout!.on("data", (d: Buffer) => {
      out = (out + d).slice(-4000);
      const m = /listening (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    proc.once("exit", (code) => reject(new Error(`web process exited (${code}): ${out}`)));
  });
  return { url, proc };
}

type Mode = "none" | "at" | "by" | "report" | "stop";
const MODES: readonly Mode[] = ["none", "at", "by", "report", "stop"];

function deliveryOf(mode: Mode, seconds: number) {
  switch (mode) {
    case "none":
      return undefined;
    case "at":
      return { mode: "at", dueInSeconds: seconds };
    case "by":
      return { mode: "by", dueInSeconds: seconds };
    case "report":
      return { mode: "by", dueInSeconds: seconds, reportIfUnfinished: true };
    case "stop":
      return { mode: "at", dueInSeconds: seconds, allowOvertime: false };
  }
}

export async function runChaos(profile: ChaosProfile): Promise<ChaosReport> {
  const log = profile.log ?? (() => {});
  const started = Date.now();
  const rnd = prng(profile.seed);
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "herald-chaos-"));
  const dataDir = path.join(tmp, "pg");
  // Durable settings, unlike other tests' throwaway clusters: with synchronous_commit off a SIGKILLed
  // postmaster loses commits it had acknowledged, which would be the harness's fault, not Herald's.
  let pg: EmbeddedPostgres = await startEmbeddedPostgres({ dataDir, detached: true });
  await applyMigrations(pg.url);
  // Everything below (this process's Prisma client, sign-ups, the children) uses the chaos database.
  process.env.DATABASE_URL = pg.url;
  const overrides: Record<string, string> = {
    DATABASE_URL: pg.url,
    HERALD_LIMITS: "off",
    HERALD_ALLOW_SIMULATE: "1",
    HERALD_TASK_LEASE_MS: String(LEASE_MS),
    HERALD_RUN_LEASE_MS: String(LEASE_MS),
    HERALD_NOTIFY_LEASE_MS: String(LEASE_MS),
    HERALD_WORKER_CONCURRENCY: String(CONCURRENCY),
    HERALD_HEARTBEAT_STALE_MS: "60000",
    HERALD_OFFLINE_CHUNK_MS: "0",
  };
  const env: NodeJS.ProcessEnv = { ...process.env, ...overrides };
  const { getDb } = await import("@/lib/db/client");
  const kysely = await import("@/lib/db/kysely");
  const recovery = new RecoveryAudit(kysely.db, LEASE_MS, CONCURRENCY);
  const trace = profile.traceDir ? new ChaosTrace(profile.traceDir, kysely.db, log) : null;

  const events = { workerKills: 0, pgFastRestarts: 0, pgKills: 0, webKills: 0 };
  let web = await startWeb(env);
  const fleet = new Fleet(profile.workers, overrides, (w) => trace?.worker(w, false));

  /** The public API, retried through outages (connection refused, 5xx, 429); idempotency keys make retries safe. */
  async function api(
    user: TestUser,
    method: string,
    p: string,
    body?: unknown,
  ): Promise<{ status: number; json: Record<string, unknown> }> {
    const deadline = Date.now() + 120_000;
    for (let attempt = 0; ; attempt++) {
      try {
        const r = await fetch(`${web.url}${p}`, {
          method,
          headers: { cookie: user.cookie, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(20_000),
        });
        const json = (await r.json().catch(() => ({}))) as Record<string, unknown>;
        if (r.status < 500 && r.status !== 429) return { status: r.status, json };
      } catch {
        // the web process or the database is down: retry
      }
      if (Date.now() > deadline) throw new Error(`${method} ${p}: no answer for 120 s`);
      await sleep(Math.min(2000, 100 * 2 ** Math.min(attempt, 5)));
    }
  }

  const users: TestUser[] = [];
  for (let i = 0; i < profile.accounts; i++) users.push(await signUp(`Chaos${i}`));
  const conversations = new Map<string, string[]>();
  for (const u of users) {
    const ids: string[] = [];
    for (let c = 0; c < 2; c++) ids.push(((await api(u, "POST", "/api/conversations", {})).json as { id: string }).id);
    conversations.set(u.id, ids);
  }

  // ---- chaos, in the background ------------------------------------------------
  let stopChaos = false;
  /**
   * The worker to kill: one whose loops run, while `keepRunning` more do (tests/chaos/fleet.ts), preferring one that
   * holds a lease within a kill interval — an idle worker's kill gives the recovery audit nothing to judge, and with
   * tasks done in about a second a random pick often hit an idle one (CI on 2026-12-01: 5 kills, no lease held at any).
   */
  async function target(): Promise<number | null> {
    let preferUntil: number | null = null;
    for (; !stopChaos; await sleep(50)) {
      const ready = fleet.ready();
      if (ready.length < profile.keepRunning + 1) continue;
      preferUntil ??= Date.now() + profile.killEveryMs[1];
      const holders = await recovery.holders();
      const holding = ready.filter((i) => holders.has(fleet.pid(i)));
      if (holding.length) return rnd.pick(holding);
      if (Date.now() > preferUntil) return rnd.pick(ready);
    }
    return null;
  }
  const killer = (async () => {
    while (!stopChaos) {
      await sleep(rnd.int(profile.killEveryMs));
      const i = await target();
      if (i === null) break;
      const { proc, killAt } = await fleet.kill(i);
      recovery.killed(proc.child.pid!, killAt);
      trace?.worker(proc);
      events.workerKills++;
    }
  })();

  async function restartPg(how: "fast" | "kill") {
    const port = pg.port;
    recovery.outageStarted();
    if (how === "fast") {
      await pg.stop();
      events.pgFastRestarts++;
    } else {
      process.kill(pg.pid, "SIGKILL");
      await pg.exited;
      events.pgKills++;
    }
    log(`postgres ${how === "fast" ? "stopped" : "SIGKILLed"}; restarting on port ${port}`);
    pg = await startEmbeddedPostgres({ dataDir, port, detached: true });
    recovery.outageEnded();
  }

  async function killWeb() {
    web.proc.kill("SIGKILL");
    events.webKills++;
    log("web process SIGKILLed; restarting");
    web = await startWeb(env);
  }

  // ---- workload ----------------------------------------------------------------
  const submitted: { id: string; user: TestUser; mode: Mode }[] = [];
  let chatTurns = 0;
  const milestones = [
    { at: 0.25, run: () => restartPg("fast") },
    { at: 0.45, run: () => killWeb() },
    { at: 0.6, run: () => restartPg("kill") },
  ];
  const followUps: Promise<unknown>[] = [];
  const BATCH = 6;
  for (let n = 0; n < profile.tasks; n += BATCH) {
    while (milestones.length && n / profile.tasks >= milestones[0].at) await milestones.shift()!.run();
    await Promise.all(
      Array.from({ length: Math.min(BATCH, profile.tasks - n) }, async () => {
        const user = rnd.pick(users);
        const mode = rnd.pick(MODES);
        const conversationId = rnd.pick(conversations.get(user.id)!);
        const steps = rnd.int(profile.steps);
        const stepMs = rnd.int(profile.stepMs);
        const dueSeconds = rnd.int([1, 5]);
        const action = rnd.next();
        const r = await api(user, "POST", "/api/tasks", {
          conversationId,
          title: `chaos ${n} ${mode}`,
          prompt: `research chaos topic ${n}`,
          clientRequestId: randomUUID(),
          options: { simulate: { steps, stepMs } },
          ...(mode === "none" ? {} : { delivery: deliveryOf(mode, dueSeconds) }),
        });
        if (r.status !== 202) throw new Error(`POST /api/tasks answered ${r.status}: ${JSON.stringify(r.json)}`);
        const id = (r.json.task as { id: string }).id;
        submitted.push({ id, user, mode });
        // A tenth are cancelled and a tenth get new instructions, a little later.
        if (action < 0.1)
          followUps.push(sleep(rnd.int([100, 1500])).then(() => api(user, "POST", `/api/tasks/${id}/cancel`, {})));
        else if (action < 0.2)
          followUps.push(
            sleep(rnd.int([100, 800])).then(() =>
              api(user, "POST", `/api/tasks/${id}/update`, { message: "also cover the risks" }),
            ),
          );
      }),
    );
    if (n % (BATCH * 4) === 0) {
      const user = rnd.pick(users);
      await api(user, "POST", `/api/conversations/${rnd.pick(conversations.get(user.id)!)}/messages`, {
        content: "hello there",
        clientMessageId: randomUUID(),
      });
      chatTurns++;
    }
  }
  while (milestones.length) await milestones.shift()!.run();
  await Promise.allSettled(followUps);
  log(`submitted ${submitted.length} tasks and ${chatTurns} chat turns; waiting for everything to settle`);

  // ---- settle ------------------------------------------------------------------
  const db = getDb();
  const ids = submitted.map((s) => s.id);
  const settleBy = Date.now() + profile.settleMs;
  let killerStopped = false;
  for (;;) {
    const pending = await db.task
      .count({
        where: {
          id: { in: ids },
          OR: [
            { status: { notIn: TERMINAL_STATUSES } },
            { notificationStatus: { in: ["pending", "claimed", "dispatched", "retry"] } },
            { dueAt: { not: null }, dueEvaluatedAt: null },
          ],
        },
      })
      .catch(() => -1);
    const runsOpen = await db.run.count({ where: { status: { in: ["queued", "running"] } } }).catch(() => -1);
    if (pending === 0 && runsOpen === 0) break;
    // The last stretch runs without kills, so a slow machine still converges.
    if (!killerStopped && Date.now() > settleBy - profile.settleMs / 3) {
      stopChaos = true;
      killerStopped = true;
    }
    if (Date.now() > settleBy) break;
    await sleep(500);
  }
  stopChaos = true;
  await killer;
  const recoveryStats = await recovery.finish();

  // ---- audit -------------------------------------------------------------------
  const violations: string[] = [];
  const bad = (s: string) => {
    if (violations.length < 50) violations.push(s);
  };
  const tasks = await db.task.findMany({ where: { id: { in: ids } } });
  const byStatus: Record<string, number> = {};
  for (const t of tasks) byStatus[t.status] = (byStatus[t.status] ?? 0) + 1;
  if (tasks.length !== submitted.length) bad(`${submitted.length} tasks submitted, ${tasks.length} stored`);
  let extra = 0;
  let reclaims = 0;
  const modeOf = new Map(submitted.map((s) => [s.id, s.mode]));
  for (const t of tasks) {
    const tag = `task ${t.id.slice(0, 8)} (${modeOf.get(t.id)}, ${t.status})`;
    if (!isTerminalStatus(t.status)) bad(`${tag}: not terminal`);
    if (t.status === "failed") bad(`${tag}: failed (${t.error})`);
    const steps = await db.taskStep.findMany({ where: { taskId: t.id }, orderBy: { index: "asc" } });
    if (steps.some((s, i) => s.index !== i))
      bad(`${tag}: steps not contiguous: ${steps.map((s) => s.index).join(",")}`);
    const stepRequests = steps.reduce((a, s) => a + s.modelRequests, 0);
    extra += Math.max(0, t.modelRequests - stepRequests);
    reclaims += Math.max(0, t.attempts - steps.length - 1);
    if (t.eventVersion > 0 && (t.notificationStatus !== "delivered" || t.notifiedVersion !== t.eventVersion)) {
      bad(`${tag}: notification ${t.notificationStatus}, version ${t.notifiedVersion}/${t.eventVersion}`);
    }
    const notices = await db.notice.findMany({ where: { taskId: t.id } });
    const noticeMsgs = await db.message.findMany({ where: { taskId: t.id, kind: "notice" } });
    // A cancel's one message is its terminal line: its notice row posts no message of its own.
    const shown = notices.filter((n) => noticeInConversation(n.key));
    if (noticeMsgs.length !== shown.length)
      bad(`${tag}: ${shown.length} notices to show but ${noticeMsgs.length} notice messages`);
    for (const n of shown) {
      const m = noticeMsgs.find((x) => (x.meta as { noticeId?: string } | null)?.noticeId === n.id);
      if (!m || m.content !== n.text) bad(`${tag}: notice ${n.key} rewritten or without its message`);
    }
    const terminalMsgs = await db.message.count({ where: { taskId: t.id, kind: "terminal" } });
    if (terminalMsgs !== 1) bad(`${tag}: ${terminalMsgs} terminal lines`);
    const pubs = await db.publication.findMany({ where: { taskId: t.id } });
    const bodies = await db.message.count({ where: { taskId: t.id, kind: "body" } });
    if (bodies !== pubs.length) bad(`${tag}: ${pubs.length} publications but ${bodies} body messages`);
    if (t.status === "succeeded" && pubs.filter((p) => !p.partial).length !== 1)
      bad(`${tag}: succeeded without exactly one final body`);
    // Narration: at most one succeeded run per event version, one reply per run.
    const runs = await db.run.findMany({ where: { taskId: t.id, kind: "notification" } });
    const perVersion = new Map<string, number>();
    for (const r of runs.filter((r) => r.status === "succeeded")) {
      const version = (r.idempotencyKey ?? "").split(":")[2];
      perVersion.set(version, (perVersion.get(version) ?? 0) + 1);
    }
    if ([...perVersion.values()].some((n) => n > 1)) bad(`${tag}: an event version narrated twice`);
    // Timed delivery told the truth.
    const mode = modeOf.get(t.id)!;
    const due = notices.find((n) => n.key === "due");
    const final = notices.find((n) => n.key === "final");
    if (t.dueAt && t.completedAt && t.status === "succeeded") {
      const late = t.completedAt > t.dueAt;
      // "at" (and "stop"): done in time → told at dueAt, on time. Done after dueAt (a step already running at the
      // deadline may commit a moment later, before the due loop stops it) → a late final notice, and any due notice says missed.
      if ((mode === "at" || mode === "stop") && !late && due?.outcome !== "on_time")
        bad(`${tag}: finished in time without an on-time due notice`);
      if (
        (mode === "at" || mode === "stop") &&
        late &&
        (final?.outcome !== "late" || (due && due.outcome !== "missed"))
      ) {
        bad(`${tag}: finished late but told ${due?.outcome ?? "nothing"} / ${final?.outcome ?? "nothing"}`);
      }
      if (
        (mode === "by" || mode === "report") &&
        final &&
        ["early", "on_time"].includes(final.outcome ?? "") === late
      ) {
        bad(`${tag}: final notice ${final.outcome} but finished ${late ? "after" : "before"} dueAt`);
      }
    }
    if (mode === "stop" && t.status === "deadline_exceeded" && t.completedAt && t.dueAt && t.completedAt < t.dueAt)
      bad(`${tag}: stopped before its deadline`);
    // Report-anyway owes a due notice when the due moment found the task unfinished. A task that finished
    // after dueAt but before its evaluation (the due loop skipped the row its final commit held locked, or
    // waited out a crash) is told once, by its late final notice, as lib/delivery/contract.ts decides.
    if (mode === "report" && t.status === "succeeded" && t.dueAt && t.completedAt && t.completedAt > t.dueAt && !due) {
      const toldLate = final?.outcome === "late" && t.dueEvaluatedAt !== null && t.dueEvaluatedAt >= t.completedAt;
      if (!toldLate) bad(`${tag}: report-anyway missed without a due notice`);
    }
  }
  // Feeds: every account's log is 1..eventSeq without a gap, and a feed replays exactly that.
  for (const u of users) {
    const seq = Number((await db.user.findUniqueOrThrow({ where: { id: u.id } })).eventSeq);
    const rows = await db.event.findMany({ where: { ownerId: u.id }, select: { seq: true }, orderBy: { seq: "asc" } });
    const expected = Array.from({ length: seq }, (_, i) => i + 1);
    if (rows.map((r) => Number(r.seq)).join() !== expected.join())
      bad(`account ${u.id.slice(0, 8)}: event log has gaps`);
    const replay = await readFeed(web.url, u, seq);
    if (replay.join() !== expected.join())
      bad(`account ${u.id.slice(0, 8)}: the feed replayed ${replay.length} of ${seq} events`);
  }
  const stuckRuns = await db.run.count({ where: { status: { in: ["queued", "running"] } } });
  if (stuckRuns > 0) bad(`${stuckRuns} chat or narration runs never finished`);
  if (extra > reclaims) bad(`${extra} extra model requests for ${reclaims} re-claimed steps`);

  stopChaos = true;
  await fleet.stop();
  for (const w of fleet.all()) trace?.worker(w, false);
  await trace?.finish();
  web.proc.kill("SIGTERM");
  await pg.stop();
  await fs.rm(tmp, { recursive: true, force: true });
  return {
    profile: { ...profile, log: undefined },
    tasks: byStatus,
    events,
    extraModelRequests: extra,
    reclaims,
    leaseMs: LEASE_MS,
    recovery: recoveryStats,
    boots: fleet.boots(),
    chatTurns,
    violations,
    seconds: Math.round((Date.now() - started) / 1000),
  };
}

/** The account's whole feed from the start, as ids (stops once `upTo` arrived, or after 20 s). */
async function readFeed(url: string, user: TestUser, upTo: number): Promise<number[]> {
  const ids: number[] = [];
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 20_000);
  try {
    const res = await fetch(`${url}/api/events?after=0`, { headers: { cookie: user.cookie }, signal: abort.signal });
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = "";
    while (ids.length === 0 || ids[ids.length - 1] < upTo) {
      const { done, value } = await reader.read();
      if (done) break;
      const { frames, rest } = takeSseFrames(buf + dec.decode(value, { stream: true }));
      buf = rest;
      for (const f of frames) if (f.id && f.event && f.event !== "reset") ids.push(Number(f.id));
    }
  } catch {
    // timed out: the audit reports what arrived
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return ids;
}
