import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startTestDatabase, type TestDatabase } from "../../tests/db";
import { applyMigrations, createMigration, DEFAULT_PRISMA_DIR, schemaDrift } from "./migrate";

const PARTIAL_INDEXES = [
  "run_due_idx",
  "task_exec_due_idx",
  "task_cancel_due_idx",
  "task_notify_due_idx",
  "task_due_idx",
];

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

describe("migrations", () => {
  let own: TestDatabase | undefined;
  let serverUrl: string;
  const created: string[] = [];
  let tmp: string;

  /** A brand-new empty database on the shared test server. */
  async function freshDatabase(): Promise<string> {
    const name = `migrate_test_${randomBytes(4).toString("hex")}`;
    await withClient(serverUrl, (c) => c.query(`CREATE DATABASE ${name}`));
    created.push(name);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    return url.toString();
  }

  beforeAll(async () => {
    // The run-wide database from tests/global-setup.ts when there is one.
    const provided = inject("serverUrl");
    if (provided) serverUrl = provided;
    else {
      own = await startTestDatabase({ migrate: false });
      serverUrl = own.url;
    }
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "herald-migrate-test-"));
  });

  afterAll(async () => {
    await withClient(serverUrl, async (c) => {
      for (const name of created) await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    });
    await own?.stop();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it("applies the committed migrations once, even with concurrent callers", async () => {
    const url = await freshDatabase();
    const results = await Promise.all([applyMigrations(url), applyMigrations(url), applyMigrations(url)]);
    const names = (await fs.readdir(path.join(DEFAULT_PRISMA_DIR, "migrations"), { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(names.length).toBeGreaterThan(0);
    // Exactly one caller did the work; the others found nothing pending.
    expect(results.flat().sort()).toEqual(names);
    expect(results.filter((r) => r.length > 0)).toHaveLength(1);
    expect(await applyMigrations(url)).toEqual([]);

    const rows = await withClient(
      url,
      async (c) => (await c.query("SELECT * FROM _prisma_migrations ORDER BY migration_name")).rows,
    );
    expect(rows.map((r) => r.migration_name)).toEqual(names);
    for (const row of rows) {
      const sql = await fs.readFile(path.join(DEFAULT_PRISMA_DIR, "migrations", row.migration_name, "migration.sql"));
      // What `prisma migrate deploy` writes: sha256 of the file, finished, one step, no rollback.
      expect(row.checksum).toBe(createHash("sha256").update(sql).digest("hex"));
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.started_at).toBeInstanceOf(Date);
      expect(row.rolled_back_at).toBeNull();
      expect(row.logs).toBeNull();
      expect(row.applied_steps_count).toBe(1);
      expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
    }

    // The hand-written partial indexes ran along with the generated SQL.
    const indexes = await withClient(
      url,
      async (c) =>
        (await c.query("SELECT indexname, indexdef FROM pg_indexes WHERE indexname = ANY($1)", [PARTIAL_INDEXES])).rows,
    );
    expect(indexes.map((i) => i.indexname).sort()).toEqual([...PARTIAL_INDEXES].sort());
    for (const i of indexes) expect(i.indexdef).toContain(" WHERE ");
  });

  it("finds no drift between schema.prisma and the committed migrations", async () => {
    expect(await schemaDrift(serverUrl)).toBe("");
  });

  it("detects drift, creates the missing migration, keeps hand-written SQL working", async () => {
    const prismaDir = path.join(tmp, "prisma");
    await fs.cp(DEFAULT_PRISMA_DIR, prismaDir, { recursive: true });
    const schemaPath = path.join(prismaDir, "schema.prisma");
    const schema = await fs.readFile(schemaPath, "utf8");
    const modified = schema.replace(/(model WorkerHeartbeat \{\n)/, "$1  driftProbe String?\n");
    expect(modified).not.toBe(schema);
    await fs.writeFile(schemaPath, modified);

    const drift = await schemaDrift(serverUrl, { prismaDir });
    expect(drift).toMatch(/ALTER TABLE "worker_heartbeat" ADD COLUMN\s+"driftProbe" TEXT/);

    const dir = await createMigration("add drift probe!", serverUrl, { prismaDir });
    expect(dir).not.toBeNull();
    expect(path.basename(dir!)).toMatch(/^\d{14}_add_drift_probe$/);
    expect(await fs.readFile(path.join(dir!, "migration.sql"), "utf8")).toContain('"driftProbe"');
    expect(await fs.readFile(path.join(dir!, "schema.prisma"), "utf8")).toBe(modified);
    // Sorted after every existing migration.
    const all = (await fs.readdir(path.join(prismaDir, "migrations"))).filter((n) => /^\d{14}_/.test(n)).sort();
    expect(all.at(-1)).toBe(path.basename(dir!));

    expect(await schemaDrift(serverUrl, { prismaDir })).toBe("");
    expect(await createMigration("nothing", serverUrl, { prismaDir })).toBeNull();

    // Hand-written SQL appended to the new migration runs with it.
    await fs.appendFile(
      path.join(dir!, "migration.sql"),
      '\nCREATE INDEX worker_heartbeat_probe_idx ON "worker_heartbeat" ("lastBeatAt") WHERE "stoppedAt" IS NULL;\n',
    );
    const url = await freshDatabase();
    expect(await applyMigrations(url, { prismaDir })).toEqual(all);
    const defs = await withClient(
      url,
      async (c) =>
        (
          await c.query("SELECT indexname FROM pg_indexes WHERE indexname = ANY($1)", [
            [...PARTIAL_INDEXES, "worker_heartbeat_probe_idx"],
          ])
        ).rows,
    );
    expect(defs).toHaveLength(PARTIAL_INDEXES.length + 1);
  });

  it("creates the first migration from an empty history, with a lock file", async () => {
    const prismaDir = path.join(tmp, "fresh");
    await fs.mkdir(prismaDir, { recursive: true });
    await fs.copyFile(path.join(DEFAULT_PRISMA_DIR, "schema.prisma"), path.join(prismaDir, "schema.prisma"));
    expect(await schemaDrift(serverUrl, { prismaDir })).toContain('CREATE TABLE "task"');
    const dir = await createMigration("init", serverUrl, { prismaDir });
    expect(path.basename(dir!)).toMatch(/^\d{14}_init$/);
    expect(await fs.readFile(path.join(prismaDir, "migrations", "migration_lock.toml"), "utf8")).toContain(
      'provider = "postgresql"',
    );
    expect(await schemaDrift(serverUrl, { prismaDir })).toBe("");
  });
});
