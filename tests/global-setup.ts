// vitest globalSetup: one migrated database for the whole run.
//   - tests read it with inject("databaseUrl") or process.env.DATABASE_URL
//     (workers are forked after this runs, so they inherit the env var);
//   - DATABASE_URL already set (external PostgreSQL): a fresh herald_test_<random>
//     database on that server, dropped at the end; otherwise a throwaway embedded cluster.

import type { TestProject } from "vitest/node";
import { createTestDatabaseOn, startTestDatabase } from "./db";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.DATABASE_URL;
  const started = Date.now();
  const db = external ? await createTestDatabaseOn(external) : await startTestDatabase();
  if (process.env.HERALD_TEST_VERBOSE) {
    console.log(`[global-setup] test database ready in ${Date.now() - started} ms`);
  }
  project.provide("databaseUrl", db.url);
  process.env.DATABASE_URL = db.url;
  return async () => {
    await db.stop();
    if (external === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = external;
  };
}
