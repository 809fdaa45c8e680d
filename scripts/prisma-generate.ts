// `prisma generate` that works offline (npm postinstall, npm run db:generate).
//
// Prisma 7's CLI downloads a native schema engine before every command unless
// PRISMA_SCHEMA_ENGINE_BINARY names an existing file; `generate` never runs that
// engine, so any file will do — this script's own path (docs/development.md#offline-toolchain).

import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const cli = require.resolve("prisma/build/index.js");

const configured = process.env.PRISMA_SCHEMA_ENGINE_BINARY;
const engine = configured && existsSync(configured) ? configured : fileURLToPath(import.meta.url);

const result = spawnSync(process.execPath, [cli, "generate", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: engine,
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    // The version check phones home; offline it only adds a timeout.
    CHECKPOINT_DISABLE: "1",
  },
});

if (result.error) {
  console.error(`prisma generate failed to start: ${result.error.message}`);
  process.exit(1);
}
process.exit(result.status ?? 1);
