// `npm test`: every check, in the order that fails fastest. Each step is a
// plain command so a failure names the step and shows its own output.
// `npm run test:slow` (`--slow`): the chaos, crash and flood suites (tests/suites.ts), after `npm test` has built.
import { spawnSync } from "node:child_process";

const fast: [string, string[]][] = [
  ["type check", ["npx", "tsc", "--noEmit"]],
  ["lint", ["npx", "eslint", ".", "--max-warnings", "0"]],
  ["dependency rules", ["npx", "depcruise", "lib", "app", "components", "worker", "scripts", "--config", ".dependency-cruiser.cjs"]],
  ["migrations match schema.prisma", ["npx", "tsx", "scripts/migrate.ts", "check"]],
  ["unit + integration (vitest)", ["npx", "vitest", "run"]],
  ["production build", ["npx", "next", "build"]],
  ["browser e2e (playwright)", ["npx", "playwright", "test"]],
];

const slow: [string, string[]][] = [
  ["chaos, crash and scale-out (vitest)", ["npx", "vitest", "run"]],
  ["browser e2e that kills or floods the server (playwright)", ["npx", "playwright", "test"]],
];

const args = process.argv.slice(2);
const slowRun = args.includes("--slow");
if (slowRun) process.env.HERALD_TEST_SUITE = "slow";
const steps = slowRun ? slow : fast;
const only = args.filter((a) => a !== "--slow");
const started = Date.now();
let passed = 0;
for (const [name, cmd] of steps) {
  if (only.length && !only.some((o) => name.includes(o))) continue;
  const t0 = Date.now();
  console.log(`\n▶ ${name}: ${cmd.join(" ")}`);
  const r = spawnSync(cmd[0], cmd.slice(1), { stdio: "inherit", env: process.env });
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  if (r.status !== 0) {
    console.error(`\n✖ ${name} failed after ${secs}s (exit ${r.status ?? r.signal})`);
    console.error(`checks: ${passed} passed, 1 failed`);
    process.exit(r.status ?? 1);
  }
  passed += 1;
  console.log(`✔ ${name} (${secs}s)`);
}
console.log(`\nall checks passed in ${((Date.now() - started) / 1000).toFixed(0)}s`);
console.log(`checks: ${passed} passed, 0 failed`);
