import { checkEnv, env } from "@/lib/config/env";
import { ensureDatabase, type DatabaseHandle } from "@/lib/db/ensure";
import { startWorker } from "@/lib/runtime/worker";

// `npm run worker` beside `npm start`: without DATABASE_URL it attaches to the
// embedded cluster that npm start owns (same HERALD_DATA_DIR), never a second one.
checkEnv();
let db: DatabaseHandle | null = null;
if (!env("DATABASE_URL")) {
  db = await ensureDatabase({ migrate: false, log: (s) => console.log(`[worker] ${s}`) });
  process.env.DATABASE_URL = db.url;
}

const worker = await startWorker();

let signals = 0;
const onSignal = (sig: NodeJS.Signals) => {
  signals += 1;
  if (signals > 1) {
    console.error(`[worker] second ${sig}: exiting now`);
    process.exit(1);
  }
  console.log(`[worker] ${sig}: finishing or releasing current work`);
  worker
    .stop()
    .then(() => db?.stop())
    .then(
      () => process.exit(0),
      (err) => {
        console.error("[worker] shutdown failed", err);
        process.exit(1);
      },
    );
};
process.on("SIGTERM", onSignal);
process.on("SIGINT", onSignal);
