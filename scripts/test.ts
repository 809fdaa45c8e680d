// `npm test`: every check, in the order that fails fastest. Each step is a
// plain command so a failure names the step and shows its own output.
// The static checks are single-threaded and independent, so they run side by side (their output is printed whole,
// one step after another, once each ends); everything after them runs alone because each uses both cores.
// `npm run test:slow` (`--slow`): the chaos, crash and flood suites (tests/suites.ts), after `npm test` has built.
import { spawn, spawnSync } from "node:child_process";

type Step = [name: string, cmd: string[]];

const staticChecks: Step[] = [
  ["type check", ["npx", "tsc", "--noEmit"]],
  ["lint", ["npx", "eslint", ".", "--max-warnings", "0"]],
  [
    "dependency rules",
    ["npx", "depcruise", "lib", "app", "components", "worker", "scripts", "--config", ".dependency-cruiser.cjs"],
  ],
  ["migrations match schema.prisma", ["npx", "tsx", "scripts/migrate.ts", "check"]],
  ["formatting (prettier)", ["npx", "prettier", "--check", "."]],
];

const fast: (Step | Step[])[] = [
  staticChecks,
  ["unit + integration (vitest)", ["npx", "vitest", "run"]],
  ["production build", ["npx", "next", "build"]],
  ["browser e2e (playwright)", ["npx", "playwright", "test"]],
];

const slow: Step[] = [
  ["chaos, crash and scale-out (vitest)", ["npx", "vitest", "run"]],
  ["browser e2e that kills or floods the server (playwright)", ["npx", "playwright", "test"]],
];

const args = process.argv.slice(2);
const slowRun = args.includes("--slow");
if (slowRun) process.env.HERALD_TEST_SUITE = "slow";
const only = args.filter((a) => a !== "--slow");
const selected = (name: string) => !only.length || only.some((o) => name.includes(o));
const started = Date.now();
let passed = 0;

function fail(name: string, secs: string, status: number | string | null): never {
  console.error(`\n✖ ${name} failed after ${secs}s (exit ${status})`);
  console.error(`checks: ${passed} passed, 1 failed`);
  process.exit(typeof status === "number" && status !== 0 ? status : 1);
}

function runAlone([name, cmd]: Step): void {
  const t0 = Date.now();
  console.log(`\n▶ ${name}: ${cmd.join(" ")}`);
  const r = spawnSync(cmd[0], cmd.slice(1), { stdio: "inherit", env: process.env });
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  if (r.status !== 0) fail(name, secs, r.status ?? r.signal);
  passed += 1;
  console.log(`✔ ${name} (${secs}s)`);
}

/** Runs the steps at once, each step's output held back and printed whole when it ends; the first failure wins. */
async function runTogether(steps: Step[]): Promise<void> {
  const t0 = Date.now();
  const results = await Promise.all(
    steps.map(
      ([name, cmd]) =>
        new Promise<{ name: string; code: number | null; secs: string }>((resolve) => {
          const child = spawn(cmd[0], cmd.slice(1), {
            env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? "1" },
          });
          let out = "";
          child.stdout.on("data", (d) => (out += d));
          child.stderr.on("data", (d) => (out += d));
          child.on("close", (code) => {
            const secs = ((Date.now() - t0) / 1000).toFixed(1);
            process.stdout.write(`\n▶ ${name}: ${cmd.join(" ")}\n${out}`);
            console.log(code === 0 ? `✔ ${name} (${secs}s)` : `✖ ${name} (${secs}s)`);
            resolve({ name, code, secs });
          });
        }),
    ),
  );
  const failed = results.find((r) => r.code !== 0);
  if (failed) fail(failed.name, failed.secs, failed.code);
  passed += results.length;
}

for (const step of slowRun ? slow : fast) {
  if (typeof step[0] === "string") {
    if (selected(step[0])) runAlone(step as Step);
  } else {
    const group = (step as Step[]).filter(([name]) => selected(name));
    if (group.length) await runTogether(group);
  }
}
console.log(`\nall checks passed in ${((Date.now() - started) / 1000).toFixed(0)}s`);
console.log(`checks: ${passed} passed, 0 failed`);
