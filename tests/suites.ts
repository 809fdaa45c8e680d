// Which test files run in `npm test` and which in `npm run test:slow`. One list, read by vitest.config.ts,
// playwright.config.ts and the check that every test file is in exactly one of the two (tests/suites.int.test.ts).
// Slow: the chaos profiles, the SIGKILL crash suites, scale-out and the specs that kill or flood the shared server;
// everything else is what a developer runs before every commit.

/** vitest files (paths from the repository root) that only `npm run test:slow` runs. */
export const SLOW_VITEST_FILES = [
  "tests/chaos/chaos.int.test.ts",
  "lib/tasks/chaos.int.test.ts",
  "lib/drivers/mcp-crash.int.test.ts",
  "tests/scale-out.int.test.ts",
  "lib/drivers/research-crash.int.test.ts",
];

/** Playwright specs (file names under e2e/) that only `npm run test:slow` runs: they kill or flood the server. */
export const SLOW_E2E_SPECS = ["supervision.spec.ts", "limits.spec.ts"];

/** `HERALD_TEST_SUITE=slow` selects the slow suite; anything else (unset) the default one. */
export const slowSuite = () => process.env.HERALD_TEST_SUITE === "slow";
