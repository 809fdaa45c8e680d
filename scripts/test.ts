// `npm test`: every check, in the order that fails fastest. Each step is a plain command so a failure names the step
// and shows its own output.
// Stages run one after another; the chains of a stage run side by side, the steps of a chain one after another.
//   - The static checks are single-threaded and independent: five chains of one step, and the production build beside
//     them (it shares nothing with them, and it is ready before Playwright needs it).
//   - vitest, then Playwright, each alone: run side by side on 2 cores they took 618 s instead of ~650 s, but vitest's
//     timing-bound tests failed under the load (docs/development.md#test-suite-times).
// The first chain of a stage prints as it runs; the others print each step's output whole when the step ends.
// `npm run test:slow` (`--slow`): the chaos, crash and flood suites (tests/suites.ts), after `npm test` has built.
import { spawn } from "node:child_process";

type Step = [name: string, cmd: string[]];
type Stage = Step[][];

const fast: Stage[] = [
  [
    [["type check", ["npx", "tsc", "--noEmit"]]],
    [["lint", ["npx", "eslint", ".", "--max-warnings", "0"]]],
    [
      [
        "dependency rules",
        ["npx", "depcruise", "lib", "app", "components", "worker", "scripts", "--config", ".dependency-cruiser.cjs"],
      ],
    ],
    [["migrations match schema.prisma", ["npx", "tsx", "scripts/migrate.ts", "check"]]],
    [["formatting (prettier)", ["npx", "prettier", "--check", "."]]],
    [["production build", ["npx", "next", "build"]]],
  ],
  [[["unit + integration (vitest)", ["npx", "vitest", "run"]]]],
  [[["browser e2e (playwright)", ["npx", "playwright", "test"]]]],
];

const slow: Stage[] = [
  [[["chaos, crash and scale-out (vitest)", ["npx", "vitest", "run"]]]],
  [[["browser e2e that kills or floods the server (playwright)", ["npx", "playwright", "test"]]]],
];

const args = process.argv.slice(2);
const slowRun = args.includes("--slow");
if (slowRun) process.env.HERALD_TEST_SUITE = "slow";
const only = args.filter((a) => a !== "--slow");
const selected = ([name]: Step) => !only.length || only.some((o) => name.includes(o));
const started = Date.now();
let passed = 0;
// Set from the steps' callbacks; a holder, so the checks below are not narrowed to its first value.
const run: { failed: { name: string; secs: string; code: number | null } | null } = { failed: null };
const running = new Set<ReturnType<typeof spawn>>();

/** One step; `live` streams its output, otherwise it is printed whole when the step ends. */
function runStep([name, cmd]: Step, live: boolean): Promise<boolean> {
  const t0 = Date.now();
  if (live) console.log(`\n▶ ${name}: ${cmd.join(" ")}`);
  return new Promise((resolve) => {
    // A process group of its own, so stopping a step stops what it started too (vitest's workers, Playwright's server).
    const child = spawn(cmd[0], cmd.slice(1), {
      detached: true,
      stdio: live ? "inherit" : "pipe",
      env: live ? process.env : { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? "1" },
    });
    running.add(child);
    let out = "";
    child.stdout?.on("data", (d) => (out += d));
    child.stderr?.on("data", (d) => (out += d));
    child.on("close", (code) => {
      running.delete(child);
      const secs = ((Date.now() - t0) / 1000).toFixed(1);
      if (!live) process.stdout.write(`\n▶ ${name}: ${cmd.join(" ")}\n${out}`);
      // A step stopped because another failed is not news.
      if (run.failed && code !== 0) return resolve(false);
      console.log(code === 0 ? `✔ ${name} (${secs}s)` : `✖ ${name} failed after ${secs}s (exit ${code})`);
      if (code === 0) passed += 1;
      else {
        run.failed = { name, secs, code };
        // The first failure ends the run: stop the steps still going rather than wait minutes for them.
        stopAll("SIGTERM");
      }
      resolve(code === 0);
    });
  });
}

function stopAll(signal: NodeJS.Signals): void {
  for (const child of running) {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // Already gone.
    }
  }
}
// The steps are not in the terminal's process group, so Ctrl-C reaches them through here.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    stopAll(signal);
    process.exit(130);
  });
}

async function runChain(chain: Step[], live: boolean): Promise<void> {
  for (const step of chain) if (run.failed || !(await runStep(step, live))) return;
}

for (const stage of slowRun ? slow : fast) {
  const chains = stage.map((chain) => chain.filter(selected)).filter((chain) => chain.length > 0);
  await Promise.all(chains.map((chain, i) => runChain(chain, i === 0)));
  const failed = run.failed;
  if (failed) {
    console.error(`\n✖ ${failed.name} failed after ${failed.secs}s (exit ${failed.code})`);
    console.error(`checks: ${passed} passed, 1 failed`);
    process.exit(failed.code || 1);
  }
}
console.log(`\nall checks passed in ${((Date.now() - started) / 1000).toFixed(0)}s`);
console.log(`checks: ${passed} passed, 0 failed`);
