// "A migrated database, whatever it takes": DATABASE_URL when set (any PostgreSQL ≥ 15; migrated through
// DATABASE_DIRECT_URL when that is set),
// otherwise the embedded cluster under the project's data dir. Used by `npm start`,
// `npm run db:migrate` and e2e setup.

import pg from "pg";
import { env } from "@/lib/config/env";
import { resolvePgDataDir } from "./data-dir";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "./embedded";
import { applyMigrations } from "./migrate";

export interface EnsureDatabaseOptions {
  /** Cluster dir for the embedded case. Default resolvePgDataDir() (<HERALD_DATA_DIR>/pg). */
  pgDataDir?: string;
  log?: (s: string) => void;
  /** See EmbeddedPostgresOptions.detached: only for callers that handle signals. */
  detached?: boolean;
  /** Apply pending migrations (default true). */
  migrate?: boolean;
  /** Embedded: the port to listen on (a restart keeps the URL every process already holds). */
  port?: number;
}

export interface DatabaseHandle {
  url: string;
  /** The embedded server, or null when DATABASE_URL was used. */
  embedded: EmbeddedPostgres | null;
  /** Migrations applied by this call. */
  applied: string[];
  /** Stops the embedded server (no-op for DATABASE_URL or an attached server). */
  stop(): Promise<void>;
}

export async function ensureDatabase(opts: EnsureDatabaseOptions = {}): Promise<DatabaseHandle> {
  const migrate = opts.migrate ?? true;
  const external = env("DATABASE_URL");
  if (external) {
    // A pooler in front (DATABASE_DIRECT_URL set) cannot hold the migrations' session advisory lock, nor create
    // a database: both go to PostgreSQL itself.
    const direct = env("DATABASE_DIRECT_URL") ?? external;
    await ensureExternalDatabase(direct, opts.log);
    const applied = migrate ? await applyMigrations(direct) : [];
    return { url: external, embedded: null, applied, stop: async () => {} };
  }
  const server = await startEmbeddedPostgres({
    dataDir: opts.pgDataDir ?? resolvePgDataDir(),
    log: opts.log,
    detached: opts.detached,
    port: opts.port,
  });
  try {
    const applied = migrate ? await applyMigrations(server.url) : [];
    return { url: server.url, embedded: server, applied, stop: server.stop };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/** A DATABASE_URL problem the operator must fix, in one line with what to do. */
export class DatabaseSetupError extends Error {}

/**
 * DATABASE_URL names a database that may not exist yet: create it when the role
 * may (what a first start on a fresh server needs), else say how to fix it.
 */
async function ensureExternalDatabase(url: string, log?: (s: string) => void): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, "")) || "postgres";
  const where = `${target.hostname}:${target.port || 5432}`;
  const probe = new pg.Client({ connectionString: url });
  probe.on("error", () => {});
  try {
    await probe.connect();
    return;
  } catch (err) {
    if ((err as { code?: string }).code !== "3D000") {
      throw new DatabaseSetupError(
        `cannot connect to the database at ${where} (${(err as Error).message}); check DATABASE_URL and that PostgreSQL is running`,
      );
    }
  } finally {
    await probe.end().catch(() => {});
  }
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
    log?.(`created database "${name}" on ${where}`);
  } catch (err) {
    if ((err as { code?: string }).code === "42P04") return; // created meanwhile by another process
    throw new DatabaseSetupError(
      `database "${name}" does not exist on ${where} and could not be created (${(err as Error).message}); create it (createdb -h ${target.hostname} -p ${target.port || 5432} ${name}) or point DATABASE_URL at an existing database`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}
