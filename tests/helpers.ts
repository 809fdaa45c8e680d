import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { getAuth } from "@/lib/auth/auth";
import pg from "pg";
import { sql } from "kysely";
import { databaseUrl, getDb } from "@/lib/db/client";
import { db } from "@/lib/db/kysely";
import { createApiKey } from "@/lib/keys/create-api-key";
import { testProcessArgs } from "./process-bundles";

export const ROOT = path.resolve(import.meta.dirname, "..");
export const ORIGIN = "http://localhost:3000";

export interface TestUser {
  id: string;
  email: string;
  cookie: string;
}

/**
 * A second connection that looks for deadlocks late (deadlock_timeout 20 s, where the server allows it): in a lock
 * cycle with it, the other side is the transaction Postgres aborts, so a test chooses which side meets the deadlock.
 */
export async function patientClient(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  await client.query("SET deadlock_timeout = '20s'").catch(() => {});
  return client;
}

/** The password every signUp() account has. */
export const TEST_PASSWORD = "correct horse battery";

/** Mints an API key for a signUp() account (key creation asks for the password again). */
export async function apiKeyFor(user: TestUser, name = "script"): Promise<{ id: string; key: string }> {
  return createApiKey(new Headers({ cookie: user.cookie, origin: ORIGIN }), user.id, { name, password: TEST_PASSWORD });
}

/** Signs up through better-auth's real HTTP handler and keeps the session cookie. */
export async function signUp(name = "Tester"): Promise<TestUser> {
  const email = `${name.toLowerCase().replace(/\W/g, "")}-${randomUUID().slice(0, 8)}@example.test`;
  const res = await getAuth().handler(
    new Request(`${ORIGIN}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: ORIGIN },
      body: JSON.stringify({ name, email, password: TEST_PASSWORD }),
    }),
  );
  if (res.status !== 200) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const body = (await res.json()) as { user: { id: string } };
  return { id: body.user.id, email, cookie };
}

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** Calls a route handler the way Next does, with the user's cookie and our Origin. */
export async function call(
  handler: Handler,
  opts: {
    user?: TestUser;
    method?: string;
    path?: string;
    params?: Record<string, string>;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
  } = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests index into arbitrary JSON bodies
): Promise<{ status: number; json: any; res: Response }> {
  const method = opts.method ?? (opts.body !== undefined || opts.rawBody !== undefined ? "POST" : "GET");
  const headers: Record<string, string> = { ...(opts.user ? { cookie: opts.user.cookie } : {}), ...opts.headers };
  if (method !== "GET") headers.origin ??= ORIGIN;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] = "application/json";
  }
  const res = await handler(new Request(`${ORIGIN}${opts.path ?? "/"}`, { method, headers, body }), {
    params: Promise.resolve(opts.params ?? {}),
  });
  // A stream never ends: leave its body to the caller.
  const streaming = res.headers.get("content-type")?.includes("text/event-stream");
  const text = res.status === 204 || streaming ? "" : await res.clone().text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: res.status, json, res };
}

/** Polls a condition (no fixed sleeps): resolves with its first truthy value or fails after timeoutMs. */
export async function waitFor<T>(
  fn: () => Promise<T | null | undefined | false>,
  timeoutMs = 20_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface WorkerProc {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * Waits until this worker process (by pid, not any worker) has a fresh heartbeat: its loops run. A killed worker's
 * last beat stays "alive" for the stale window, so a wait that accepted any beat could pass on a dead one.
 */
export async function waitForBeat(w: WorkerProc, timeoutMs = 60_000): Promise<void> {
  const pid = w.child.pid;
  await waitFor(
    async () => {
      if (pid === undefined) return false;
      const beat = await db()
        .selectFrom("worker_heartbeat")
        .select("id")
        .where("pid", "=", pid)
        .where("stoppedAt", "is", null)
        .where("lastBeatAt", ">", sql<Date>`now() - interval '10 seconds'`)
        .executeTakeFirst();
      return beat !== undefined;
    },
    timeoutMs,
    `worker pid ${pid} beating`,
  );
}

/** Starts a real worker process (node itself, on the run's bundle or through tsx, so the pid is the worker). */
export function startWorkerProcess(env: Record<string, string> = {}): WorkerProc {
  let out = "";
  // BENCH_CPU_PROF=<dir>: each worker writes a CPU profile there when it exits (bench/task-burst.ts under a profiler).
  const prof = process.env.BENCH_CPU_PROF;
  const child = spawn(
    process.execPath,
    [...(prof ? ["--cpu-prof", `--cpu-prof-dir=${prof}`] : []), ...testProcessArgs("worker")],
    {
      cwd: ROOT,
      env: { ...process.env, HERALD_POLL_MS: "500", HERALD_HEARTBEAT_MS: "1000", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => out, exited };
}

export async function stopWorkers(...workers: WorkerProc[]): Promise<void> {
  await Promise.all(
    workers.map(async (w) => {
      if (w.child.exitCode !== null || w.child.signalCode !== null) return;
      w.child.kill("SIGTERM");
      const t = setTimeout(() => w.child.kill("SIGKILL"), 10_000);
      await w.exited;
      clearTimeout(t);
    }),
  );
}

export async function createConversationFor(user: TestUser, title = "Test"): Promise<string> {
  const c = await getDb().conversation.create({ data: { ownerId: user.id, title } });
  return c.id;
}
