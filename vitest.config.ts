import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    include: ["lib/**/*.test.ts", "worker/**/*.test.ts", "tests/**/*.test.ts", "components/**/*.test.{ts,tsx}"],
    exclude: ["node_modules", ".next", ".data", "e2e"],
    globalSetup: ["tests/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration suites spawn worker processes; two cores do not like more than two files at once.
    maxWorkers: 2,
    env: { HERALD_OFFLINE_CHUNK_MS: "0" },
  },
});
