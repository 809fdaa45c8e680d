// `npm run chaos`: the full chaos profile (1,000 tasks) against a throwaway
// embedded PostgreSQL. CHAOS_SEED, CHAOS_TASKS and CHAOS_ACCOUNTS override it.
// Prints the audit table; exits 1 on any violation, a recovery slower than lease + 1 s included.
import { FULL_PROFILE, runChaos } from "../tests/chaos/harness";
import { formatReport } from "../tests/chaos/report";

const profile = {
  ...FULL_PROFILE,
  ...(process.env.CHAOS_SEED ? { seed: Number(process.env.CHAOS_SEED) } : {}),
  ...(process.env.CHAOS_TASKS ? { tasks: Number(process.env.CHAOS_TASKS) } : {}),
  ...(process.env.CHAOS_ACCOUNTS ? { accounts: Number(process.env.CHAOS_ACCOUNTS) } : {}),
  ...(process.env.CHAOS_TRACE ? { traceDir: process.env.CHAOS_TRACE } : {}),
  log: (line: string) => console.log(`[chaos] ${line}`),
};
const report = await runChaos(profile);
console.log(formatReport(report));
process.exit(report.violations.length === 0 && report.recovery.violations.length === 0 ? 0 : 1);
