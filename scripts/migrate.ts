// Offline replacement for `prisma migrate deploy|dev --create-only|diff` (docs/development.md#migrations).
//
//   tsx scripts/migrate.ts apply           npm run db:migrate
//   tsx scripts/migrate.ts create <name>   npm run db:migration -- <name>
//   tsx scripts/migrate.ts check           exit 1 and print the SQL when schema.prisma has unmigrated changes
//
// DATABASE_DIRECT_URL, else DATABASE_URL, is used when set. Otherwise `apply` uses the project's embedded cluster
// (resolveDataDir()), and `create`/`check`, which only need some live database for the
// engine to diff, start a throwaway one in a temp dir.

import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { env } from "../lib/config/env";
import { resolvePgDataDir } from "../lib/db/data-dir";
import { startEmbeddedPostgres } from "../lib/db/embedded";
import { applyMigrations, createMigration, schemaDrift } from "../lib/db/migrate";

const USAGE = "usage: tsx scripts/migrate.ts apply | create <name> | check";

const cleanups: Array<() => Promise<void>> = [];

async function cleanup(): Promise<void> {
  while (cleanups.length) await cleanups.pop()!().catch((err) => console.error(err));
}

async function databaseUrl(kind: "project" | "throwaway"): Promise<string> {
  // Migrations hold a session advisory lock: behind a transaction-mode pooler they need the direct connection.
  const url = env("DATABASE_DIRECT_URL") ?? env("DATABASE_URL");
  if (url) return url;
  if (kind === "project") {
    const server = await startEmbeddedPostgres({ dataDir: resolvePgDataDir() });
    cleanups.push(server.stop);
    return server.url;
  }
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "herald-migrate-"));
  cleanups.push(() => fs.rm(tmp, { recursive: true, force: true }));
  const server = await startEmbeddedPostgres({ dataDir: path.join(tmp, "pg"), ephemeral: true });
  cleanups.push(server.stop);
  return server.url;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "apply": {
      const applied = await applyMigrations(await databaseUrl("project"));
      console.log(applied.length ? `applied: ${applied.join(", ")}` : "database is up to date");
      return 0;
    }
    case "create": {
      const name = rest.join("_");
      if (!name) {
        console.error(USAGE);
        return 2;
      }
      const dir = await createMigration(name, await databaseUrl("throwaway"));
      if (!dir) {
        console.log("schema.prisma matches the latest migration: nothing to create");
        return 0;
      }
      const rel = path.relative(process.cwd(), dir);
      console.log(`created ${rel}/migration.sql (+ schema.prisma snapshot)`);
      console.log("Append hand-written SQL (e.g. partial indexes) after the generated part if needed.");
      return 0;
    }
    case "check": {
      const sql = await schemaDrift(await databaseUrl("throwaway"));
      if (sql) {
        console.error("prisma/schema.prisma has changes that no migration contains. Missing SQL:\n");
        console.log(sql);
        console.error("\nrun: npm run db:migration -- <name>");
        return 1;
      }
      console.log("migrations match prisma/schema.prisma");
      return 0;
    }
    default:
      console.error(USAGE);
      return 2;
  }
}

for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.once(sig, () => {
    void cleanup().finally(() => process.exit(130));
  });
}

// Exit explicitly: the schema engine and pg pools can leave handles behind.
main(process.argv.slice(2)).then(
  async (code) => {
    await cleanup();
    process.exit(code);
  },
  async (err) => {
    console.error(err instanceof Error ? err.message : err);
    await cleanup();
    process.exit(1);
  },
);
