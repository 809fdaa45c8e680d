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

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    // `npm run test:slow` runs the slow files only; `npm test` everything else (tests/suites.ts).
    include: slowSuite() ? SLOW_VITEST_FILES : include,
    exclude: slowSuite() ? exclude : [...exclude, ...SLOW_VITEST_FILES],
    globalSetup: ["tests/global-setup.ts"],
    setupFiles: ["tests/file-db.ts"],
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
  },
});
