import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { sql } from "kysely";
import { closeDb, getDb } from "@/lib/db/client";
import { db } from "@/lib/db/kysely";
import { pickFreePort } from "@/lib/util/free-port";
import { collectFeed, post, startWeb, type Web } from "@/tests/web-client";
import { signUp, startWorkerProcess, stopWorkers, waitFor, type WorkerProc } from "@/tests/helpers";

/**
 * Herald behind a transaction-mode pooler (docs/operations.md#connection-poolers): Debian's PgBouncer 1.18 in front of
 * the test database, with fewer server connections than Herald's pools have clients, so consecutive transactions of
 * one client land on different server connections. A web process and a worker use it as DATABASE_URL and the test
 * database as DATABASE_DIRECT_URL; chat, a research task and the live feed work through it, with no prepared-statement
 * (42P05, 26000) or other database errors in their logs.
 */
const PGBOUNCER = "/usr/sbin/pgbouncer";

interface Bouncer {
  url: string;
  proc: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

/** The unprivileged user PgBouncer runs as when we are root (it refuses to run as root). */
function dropTo(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const user of ["postgres", "nobody"]) {
    try {
      const uid = Number(execFileSync("id", ["-u", user]).toString().trim());
      const gid = Number(execFileSync("id", ["-g", user]).toString().trim());
      return { uid, gid };
    } catch {
      // next candidate
    }
  }
  throw new Error("running as root and found neither a postgres nor a nobody user for pgbouncer to run as");
}

async function startPgBouncer(direct: string): Promise<Bouncer> {
  if (!existsSync(PGBOUNCER)) {
    throw new Error(
      `${PGBOUNCER} is missing: this test runs Herald behind Debian's PgBouncer (apt-get install pgbouncer; .ci/run installs it)`,
    );
  }
  const target = new URL(direct);
  const port = await pickFreePort();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "herald-pgbouncer-"));
  await fs.chmod(dir, 0o755);
  const user = decodeURIComponent(target.username);
  const password = decodeURIComponent(target.password);
  // trust between the test and PgBouncer; PgBouncer logs in to PostgreSQL with the password from the auth file.
  await fs.writeFile(path.join(dir, "users.txt"), `"${user}" "${password}"\n`, { mode: 0o644 });
  await fs.writeFile(
    path.join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=${target.hostname} port=${target.port}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${path.join(dir, "users.txt")}`,
      "pool_mode = transaction",
      // Fewer server connections than the processes' pools hold clients: transactions move between them.
      "default_pool_size = 4",
      "max_client_conn = 200",
      "server_lifetime = 3600",
      "",
    ].join("\n"),
    { mode: 0o644 },
  );
  let out = "";
  const proc = spawn(PGBOUNCER, [path.join(dir, "pgbouncer.ini")], { stdio: ["ignore", "pipe", "pipe"], ...dropTo() });
  proc.stdout!.on("data", (d) => (out += d));
  proc.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  const url = new URL(direct);
  url.port = String(port);
  await waitFor(
    async () => {
      if (proc.exitCode !== null) throw new Error(`pgbouncer exited (${proc.exitCode}): ${out}`);
      const c = new pg.Client({ connectionString: url.toString() });
      c.on("error", () => {});
      try {
        await c.connect();
        await c.query("SELECT 1");
        return true;
      } finally {
        await c.end().catch(() => {});
      }
    },
    20_000,
    "pgbouncer accepting",
  );
  return {
    url: url.toString(),
    proc,
    output: () => out,
    async stop() {
      proc.kill("SIGTERM");
      await exited;
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/** What a pooler-broken Herald logs: prepared statements on the wrong server connection, or any failed statement. */
const DATABASE_TROUBLE = /42P05|26000|prepared statement|\b(ERROR|FATAL):|"level":50|\[feed\] .*failed/;

async function onDirect<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
  c.on("error", () => {});
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => {});
  }
}

describe("behind PgBouncer in transaction mode", () => {
  const direct = process.env.DATABASE_URL!;
  const database = decodeURIComponent(new URL(direct).pathname.slice(1));
  let bouncer: Bouncer;
  let web: Web;
  let worker: WorkerProc;

  beforeAll(async () => {
    // The pooler forwards no statement_timeout startup parameter: behind it the setting lives on the server side
    // (docs/operations.md#connection-poolers), and Herald checks that its connections have it. Set before the pooler
    // opens its first server connection, which takes it at its start.
    await onDirect((c) => c.query(`ALTER DATABASE ${c.escapeIdentifier(database)} SET statement_timeout = '20s'`));
    bouncer = await startPgBouncer(direct);
    const env = {
      DATABASE_URL: bouncer.url,
      DATABASE_DIRECT_URL: direct,
      HERALD_RESEARCH_STEPS: "2",
      HERALD_RESEARCH_STEP_MS: "0",
      HERALD_SEARCH_PROVIDER: "none",
    };
    web = await startWeb(env);
    worker = startWorkerProcess(env);
  }, 90_000);

  afterAll(async () => {
    await stopWorkers(...[worker].filter(Boolean));
    web?.proc.kill("SIGTERM");
    await bouncer?.stop();
    await onDirect((c) => c.query(`ALTER DATABASE ${c.escapeIdentifier(database)} RESET statement_timeout`));
  });

  it(
    "a chat message gets its reply, a research task succeeds and the feed delivers both, with no database errors",
    { timeout: 120_000 },
    async () => {
      const u = await signUp("Pooled");
      const feed = collectFeed(web, u);
      const conv = await post(web, u, "/api/conversations", {});
      expect(conv.status).toBe(201);
      const conversationId = (conv.json as { id: string }).id;

      const sent = await post(web, u, `/api/conversations/${conversationId}/messages`, {
        content: "Hello there, how are you?",
        clientMessageId: randomUUID(),
      });
      expect(sent.status).toBeLessThan(300);
      await waitFor(
        () => getDb().message.findFirst({ where: { conversationId, kind: "assistant", hidden: false } }),
        60_000,
        "the assistant's reply",
      );

      const started = await post(web, u, "/api/tasks", {
        conversationId,
        title: "tea history",
        prompt: "Research the history of tea",
        clientRequestId: randomUUID(),
      });
      expect(started.status).toBe(202);
      const taskId = (started.json.task as { id: string }).id;
      const task = await waitFor(
        async () => {
          const t = await getDb().task.findUniqueOrThrow({ where: { id: taskId } });
          return t.status === "succeeded" || t.status === "failed" || t.status === "cancelled" ? t : null;
        },
        90_000,
        "the research task finished",
      );
      expect(task.status).toBe("succeeded");

      // The feed (LISTEN on the direct connection, log reads through the pooler) delivers the whole log in order
      // (the task's notice turn may still be adding to it).
      const last = Number((await getDb().user.findUniqueOrThrow({ where: { id: u.id } })).eventSeq);
      await waitFor(
        async () => (feed.events.at(-1)?.id ?? 0) >= last,
        20_000,
        `the feed caught up to ${last} (now ${feed.events.at(-1)?.id})`,
      );
      await feed.stop();
      expect(feed.events.map((e) => e.id).slice(0, last)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
      expect(feed.events.some((e) => e.type === "task.updated")).toBe(true);
      expect(feed.events.some((e) => e.type === "message.created")).toBe(true);

      for (const [name, out] of [
        ["worker", worker.output()],
        ["web", web.output()],
      ] as const) {
        expect(DATABASE_TROUBLE.exec(out)?.[0], `${name} log:\n${out}`).toBeUndefined();
        // The pooled connections have the database's statement_timeout, so there is nothing to warn about.
        expect(out, `${name} log`).not.toMatch(/statement_timeout/);
      }
      // PgBouncer itself saw no protocol errors either.
      expect(bouncer.output()).not.toMatch(/prepared statement|unsupported startup parameter/);
    },
  );

  it(
    "with no direct URL (pgbouncer=true only) there is no LISTEN: replies and the feed still arrive by polling, after one warning",
    { timeout: 90_000 },
    async () => {
      await stopWorkers(worker);
      web.proc.kill("SIGTERM");
      const url = new URL(bouncer.url);
      url.searchParams.set("pgbouncer", "true");
      const env = { DATABASE_URL: url.toString() };
      web = await startWeb(env);
      worker = startWorkerProcess(env);

      const u = await signUp("Polled");
      const feed = collectFeed(web, u);
      const conv = await post(web, u, "/api/conversations", {});
      expect(conv.status).toBe(201);
      const conversationId = (conv.json as { id: string }).id;
      const sent = await post(web, u, `/api/conversations/${conversationId}/messages`, {
        content: "Hello again",
        clientMessageId: randomUUID(),
      });
      expect(sent.status).toBeLessThan(300);
      const reply = await waitFor(
        () => getDb().message.findFirst({ where: { conversationId, kind: "assistant", hidden: false } }),
        60_000,
        "the assistant's reply",
      );
      await waitFor(
        async () =>
          feed.events.some(
            (e) => e.type === "message.created" && (e.data as { message?: { id?: string } })?.message?.id === reply.id,
          ),
        20_000,
        "the reply on the feed",
      );
      await feed.stop();

      for (const [name, out] of [
        ["worker", worker.output()],
        ["web", web.output()],
      ] as const) {
        expect(DATABASE_TROUBLE.exec(out)?.[0], `${name} log:\n${out}`).toBeUndefined();
        expect(out.match(/no LISTEN/g), `${name} log`).toHaveLength(1);
      }
    },
  );
});

describe("statement_timeout on the pool", () => {
  const restore = process.env.HERALD_STATEMENT_TIMEOUT_MS;
  beforeAll(async () => {
    await closeDb();
    process.env.HERALD_STATEMENT_TIMEOUT_MS = "300";
  });
  afterAll(async () => {
    await closeDb();
    if (restore === undefined) delete process.env.HERALD_STATEMENT_TIMEOUT_MS;
    else process.env.HERALD_STATEMENT_TIMEOUT_MS = restore;
  });

  it("cancels a statement over HERALD_STATEMENT_TIMEOUT_MS (57014), through Prisma and through pg, instead of letting it run on", async () => {
    const started = Date.now();
    await expect(sql`SELECT pg_sleep(10)`.execute(db())).rejects.toMatchObject({ code: "57014" });
    // Prisma sends no raw SQL any more: its model call waits on a lock another connection holds.
    await onDirect(async (c) => {
      await c.query(`BEGIN; LOCK TABLE "maintenance_job" IN ACCESS EXCLUSIVE MODE`);
      try {
        await expect(getDb().maintenanceJob.findMany()).rejects.toThrow(/57014|statement timeout/);
      } finally {
        await c.query("ROLLBACK");
      }
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    // The connection is still good for the next caller.
    expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(db())).rows).toEqual([{ one: 1 }]);
  });
});
