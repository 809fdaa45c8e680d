import { defineConfig, devices } from "@playwright/test";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { SLOW_E2E_SPECS, slowSuite } from "./tests/suites.ts";
import { launchOptions } from "./e2e/browser.ts";

const PORT = Number(process.env.E2E_PORT ?? 3100);
export const baseURL = `http://localhost:${PORT}`;
/** Search on this port, its pages on the next one. */
const RESEARCH_PEER_PORT = PORT + 2;
// A throwaway database per run; the config is evaluated in several processes, so
// the directory is created once and handed down through the environment.
process.env.E2E_DATA_DIR ??= mkdtempSync(path.join(os.tmpdir(), "herald-e2e-"));

export default defineConfig({
  testDir: "e2e",
  // The specs that kill or flood the shared server run in `npm run test:slow`, against a server of their own.
  testMatch: slowSuite() ? SLOW_E2E_SPECS : "*.spec.ts",
  testIgnore: slowSuite() ? [] : SLOW_E2E_SPECS,
  fullyParallel: false,
  // HERALD_E2E_WORKERS: how many specs run at once against the one server (each test has its own account). The
  // slow suite's specs kill or flood that server, so they run one at a time.
  workers: slowSuite() ? 1 : Number(process.env.HERALD_E2E_WORKERS ?? 2),
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  outputDir: "test-results",
  use: {
    baseURL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    // The UI honours reduced motion (motion-reduce:, globals.css): without it, the spinners and pulses of every open
    // page kept the browser repainting, and the browser was the suite's largest use of CPU.
    reducedMotion: "reduce",
    launchOptions,
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"] } }],
  webServer: [
    {
      // The research peer (tests/research-peer-server.ts): a SearXNG-shaped search and loopback pages about Lake Zorb
      // for e2e/sources.spec.ts; any other query finds nothing, so other specs' research reads no page.
      command: "node --import tsx tests/research-peer-server.ts",
      url: `http://127.0.0.1:${RESEARCH_PEER_PORT}/search?q=health&format=json`,
      reuseExistingServer: false,
      env: { RESEARCH_PEER_PORT: String(RESEARCH_PEER_PORT) },
    },
    {
      // node + tsx loader directly (not npx): the signal must reach start.ts, which stops web, worker and Postgres.
      command: "node --import tsx scripts/start.ts",
      gracefulShutdown: { signal: "SIGTERM", timeout: 30_000 },
      url: `${baseURL}/api/health`,
      timeout: 240_000,
      reuseExistingServer: false,
      stdout: "pipe",
      stderr: "pipe",
      env: {
        PORT: String(PORT),
        HERALD_DATA_DIR: process.env.E2E_DATA_DIR,
        BETTER_AUTH_URL: baseURL,
        HERALD_OFFLINE_CHUNK_MS: "25",
        HERALD_POLL_MS: "1000",
        HERALD_RESEARCH_STEP_MS: "400",
        HERALD_ALLOW_SIMULATE: "1",
        HERALD_SEARCH_PROVIDER: "searxng",
        HERALD_SEARCH_URL: `http://127.0.0.1:${RESEARCH_PEER_PORT}`,
        HERALD_FETCH_ALLOW_PRIVATE: "1",
        // Many sign-ups from one address in seconds is the suite, not an attack.
        HERALD_AUTH_RATE_LIMIT: "off",
        // One labelled MCP server for the Work with picker (e2e/work-with.spec.ts); nothing listens there, and it has no
        // description, so the chat model never routes to it by itself.
        HERALD_MCP_SERVERS: JSON.stringify([
          {
            name: "e2e-market-internal",
            label: "Market data",
            url: "http://127.0.0.1:45871/mcp",
            tool: "market_tool",
            reapOrphans: false,
          },
        ]),
      },
    },
  ],
});
