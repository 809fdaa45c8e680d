// vitest setupFiles of the integration project (vitest.config.ts): each `*.int.test.ts` runs against its own copy of
// the run's migrated template (tests/global-setup.ts). Every such file runs in a process of its own, so DATABASE_URL
// set here is this file's, and so is every worker or web process it starts (they inherit it). Unit files are another
// project, without this file or a database.
import { afterAll, expect, inject } from "vitest";
import { copyTemplate } from "./db";

const file = expect.getState().testPath ?? "";
if (/\.int\.test\.tsx?$/.test(file)) {
  const db = await copyTemplate(inject("serverUrl"), inject("templateName"));
  process.env.DATABASE_URL = db.url;
  // What an entry point does at process start (lib/drivers/setup.ts); a file that changes the drivers'
  // configuration calls setUpDrivers() again.
  await (await import("@/lib/drivers/setup")).setUpDrivers();
  // Registered first, so it runs after the file's own afterAll hooks (they stop the workers they started).
  afterAll(async () => {
    // Imported here: unit files should not pay for loading the database client.
    await (await import("@/lib/db/client")).closeDb();
    await db.stop();
  });
}
