// "A migrated database, whatever it takes": DATABASE_URL when set (any PostgreSQL ≥ 15),
// otherwise the embedded cluster under the project's data dir. Used by `npm start`,
// `npm run db:migrate` and e2e setup.

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
    const applied = migrate ? await applyMigrations(external) : [];
    return { url: external, embedded: null, applied, stop: async () => {} };
  }
  const server = await startEmbeddedPostgres({
    dataDir: opts.pgDataDir ?? resolvePgDataDir(),
    log: opts.log,
    detached: opts.detached,
  });
  try {
    const applied = migrate ? await applyMigrations(server.url) : [];
    return { url: server.url, embedded: server, applied, stop: server.stop };
  } catch (err) {
    await server.stop();
    throw err;
  }
}
