// vitest globalSetup: one PostgreSQL server for the run and, on it, one migrated template database. Each integration
// file gets its own copy of the template (tests/file-db.ts), so nothing one file leaves behind (tasks, heartbeats of a
// SIGKILLed worker, leases) is seen, claimed or counted by another, and files can run side by side.
//   - DATABASE_URL already set (external PostgreSQL): the template and the copies are made on that server and
//     dropped at the end; otherwise a throwaway embedded cluster.
//   - tests that need the server itself (to make databases of their own) read inject("serverUrl").

import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { createTestDatabaseOn, markTemplate, startTestDatabase, type TestDatabase } from "./db";
import { bundleTestProcesses } from "./process-bundles";

declare module "vitest" {
  export interface ProvidedContext {
    /** A database on the run's server that tests may connect to for CREATE/DROP DATABASE (never the template). */
    serverUrl: string;
    /** The migrated template each integration file's database is copied from; nothing connects to it. */
    templateName: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.DATABASE_URL;
  const started = Date.now();
  // The worker and web processes files start (tests/process-bundles.ts); a directory per run, so two runs side by
  // side never start each other's build.
  const root = path.resolve(import.meta.dirname, "..");
  await mkdir(path.join(root, "node_modules/.cache"), { recursive: true });
  const bundles = await mkdtemp(path.join(root, "node_modules/.cache/herald-test-"));
  await bundleTestProcesses(root, bundles);
  let server: TestDatabase | undefined;
  const serverUrl = external ?? (server = await startTestDatabase({ migrate: false })).url;
  let template: TestDatabase;
  try {
    template = await createTestDatabaseOn(serverUrl);
    await markTemplate(serverUrl, template.url);
  } catch (err) {
    await server?.stop();
    await rm(bundles, { recursive: true, force: true });
    throw err;
  }
  if (process.env.HERALD_TEST_VERBOSE) {
    console.log(`[global-setup] template database ready in ${Date.now() - started} ms`);
  }
  project.provide("serverUrl", serverUrl);
  project.provide("templateName", new URL(template.url).pathname.slice(1));
  // Files copy this before they run; a process that reaches it (it takes no connections) fails loudly.
  process.env.DATABASE_URL = template.url;
  return async () => {
    await template.stop().catch(() => {});
    await server?.stop();
    await rm(bundles, { recursive: true, force: true });
    if (external === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = external;
  };
}
