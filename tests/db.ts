// Real PostgreSQL for integration tests (docs/development.md#tests): a throwaway embedded cluster per
// call, or a throwaway database on an external server when DATABASE_URL is given.

import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../lib/db/embedded";
import { applyMigrations } from "../lib/db/migrate";

export interface TestDatabase {
  url: string;
  stop(): Promise<void>;
}

/** Embedded Postgres in a fresh temp data dir, migrated. stop() also deletes the dir. */
export async function startTestDatabase(opts: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "herald-test-"));
  const removeTmp = () => fs.rm(tmp, { recursive: true, force: true });
  let server: EmbeddedPostgres;
  try {
    server = await startEmbeddedPostgres({ dataDir: path.join(tmp, "pg"), ephemeral: true });
  } catch (err) {
    await removeTmp();
    throw err;
  }
  const stop = async () => {
    await server.stop();
    await removeTmp();
  };
  try {
    if (opts.migrate ?? true) await applyMigrations(server.url);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: server.url, stop };
}

async function admin<T>(serverUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  client.on("error", () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * A fresh `herald_test_<random>` database on the server behind `serverUrl`, migrated;
 * stop() drops it (terminating leftover connections).
 */
export async function createTestDatabaseOn(serverUrl: string, opts: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const name = `herald_test_${randomBytes(6).toString("hex")}`;
  await admin(serverUrl, (c) => c.query(`CREATE DATABASE ${c.escapeIdentifier(name)}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const stop = () =>
    admin(serverUrl, async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${c.escapeIdentifier(name)} WITH (FORCE)`);
    });
  try {
    if (opts.migrate ?? true) await applyMigrations(url.toString());
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
  return { url: url.toString(), stop };
}

/** Marks a migrated database as a template nobody connects to: files copy it (`copyTemplate`), never use it. */
export async function markTemplate(serverUrl: string, templateUrl: string): Promise<void> {
  const name = new URL(templateUrl).pathname.slice(1);
  await admin(serverUrl, (c) =>
    c.query(`ALTER DATABASE ${c.escapeIdentifier(name)} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`),
  );
}

/**
 * A fresh database copied from the template (a file copy on the server: milliseconds, where migrating takes seconds);
 * stop() drops it, ending any connection a test left open (a worker process it did not stop, say).
 */
export async function copyTemplate(
  serverUrl: string,
  templateName: string,
  prefix = "herald_file",
): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  await admin(serverUrl, (c) =>
    c.query(`CREATE DATABASE ${c.escapeIdentifier(name)} TEMPLATE ${c.escapeIdentifier(templateName)}`),
  );
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const stop = () =>
    admin(
      serverUrl,
      async (c) => void (await c.query(`DROP DATABASE IF EXISTS ${c.escapeIdentifier(name)} WITH (FORCE)`)),
    );
  return { url: url.toString(), stop };
}
