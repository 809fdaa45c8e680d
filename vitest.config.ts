import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";
import { SLOW_VITEST_FILES, slowSuite } from "./tests/suites.ts";

const include = [
  "lib/**/*.test.ts",
  "worker/**/*.test.ts",
  "scripts/**/*.test.ts",
  "tests/**/*.test.ts",
  "components/**/*.test.{ts,tsx}",
];
const exclude = ["node_modules", ".next", ".data", "e2e"];
const INTEGRATION = "**/*.int.test.ts";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Every integration file has a database of its own (tests/file-db.ts) and starts its own workers, so files run
    // side by side; HERALD_TEST_FILES caps how many at once (default 3: on 2 cores most files wait on timers and
    // other processes).
    fileParallelism: true,
    maxWorkers: Number(process.env.HERALD_TEST_FILES ?? 3),
    // options.simulate paces research in tests; a normal server refuses it. npm start generates the
    // auth secret into the data dir; tests have none, and unsubscribe links are never signed without one.
    env: {
      HERALD_OFFLINE_CHUNK_MS: "0",
      HERALD_ALLOW_SIMULATE: "1",
      BETTER_AUTH_SECRET: "vitest-only-auth-secret-Q3x9Lr7PzK2mWv8T",
    },
    // `npm run test:slow` runs the slow files only (all of them integration files); `npm test` everything else
    // (tests/suites.ts).
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: slowSuite() ? [] : include,
          exclude: [...exclude, INTEGRATION],
          // Database-free files share their worker's modules: a fresh module graph per file was two thirds of their
          // time (48 s → 18 s for the hundred of them here). Every one of them passed so.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          // The run's PostgreSQL and its migrated template; each file copies it (tests/file-db.ts).
          globalSetup: ["tests/global-setup.ts"],
          setupFiles: ["tests/file-db.ts"],
          include: slowSuite() ? SLOW_VITEST_FILES : [INTEGRATION],
          exclude: slowSuite() ? exclude : [...exclude, ...SLOW_VITEST_FILES],
          // A process per file: its DATABASE_URL, its drivers and the product's process-wide state are its own.
          isolate: true,
        },
      },
    ],
  },
});
