import { checkEnv, env } from "@/lib/config/env";
import { ensureDatabase, type DatabaseHandle } from "@/lib/db/ensure";
import { startWorker } from "@/lib/runtime/start-worker";
import { setUpDrivers } from "@/lib/drivers/setup";
import { log } from "@/lib/util/log";
import { installTestHooksFromEnv } from "@/lib/util/test-hooks";

// `npm run worker` beside `npm start`: without DATABASE_URL it attaches to the
// embedded cluster that npm start owns (same HERALD_DATA_DIR), never a second one.
checkEnv();
// Crash tests reach a worker process only through env: their pauses are read here, once (lib/util/test-hooks.ts).
installTestHooksFromEnv();
await setUpDrivers();
const logger = log("worker");
let db: DatabaseHandle | null = null;
if (!env("DATABASE_URL")) {
  db = await ensureDatabase({ migrate: false, log: (s) => logger.info(s) });
  process.env.DATABASE_URL = db.url;
}

const worker = await startWorker();

let signals = 0;
const onSignal = (sig: NodeJS.Signals) => {
  signals += 1;
  if (signals > 1) {
    logger.error({ signal: sig }, `second ${sig}: exiting now`);
    process.exit(1);
  }
  logger.info({ signal: sig }, `${sig}: finishing or releasing current work`);
  worker
    .stop()
    .then(() => db?.stop())
    .then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
};
process.on("SIGTERM", onSignal);
process.on("SIGINT", onSignal);
