import { startWorker } from "@/lib/workers/worker";

const worker = await startWorker();

let signals = 0;
const onSignal = (sig: NodeJS.Signals) => {
  signals += 1;
  if (signals > 1) {
    console.error(`[worker] second ${sig}: exiting now`);
    process.exit(1);
  }
  console.log(`[worker] ${sig}: finishing or releasing current work`);
  worker.stop().then(
    () => process.exit(0),
    (err) => {
      console.error("[worker] shutdown failed", err);
      process.exit(1);
    },
  );
};
process.on("SIGTERM", onSignal);
process.on("SIGINT", onSignal);
