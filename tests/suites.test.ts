import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { SLOW_E2E_SPECS, SLOW_VITEST_FILES } from "./suites";

// Every test file runs in exactly one of `npm test` and `npm run test:slow`. Asked of the real runners with the real
// configs (not a second copy of their globs), so a file a config stops matching is caught here.
const root = path.resolve(__dirname, "..");
const SKIP = new Set(["node_modules", ".next", ".data", ".git", "test-results"]);

function filesUnder(dir: string, pattern: RegExp): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && pattern.test(e.name))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
    .filter((f) => !f.split(path.sep).some((part) => SKIP.has(part)));
}

const run = (cmd: string[], suite: "slow" | "default") =>
  execFileSync(cmd[0], cmd.slice(1), {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, HERALD_TEST_SUITE: suite === "slow" ? "slow" : "" },
    stdio: ["ignore", "pipe", "ignore"],
    timeout: 60_000,
  });

const vitestFiles = (suite: "slow" | "default") =>
  (JSON.parse(run(["npx", "vitest", "list", "--filesOnly", "--json"], suite)) as { file: string }[]).map((f) =>
    path.relative(root, f.file),
  );

const playwrightFiles = (suite: "slow" | "default") => {
  const report = JSON.parse(run(["npx", "playwright", "test", "--list", "--reporter=json"], suite)) as {
    suites: { file: string }[];
  };
  return report.suites.map((s) => path.join("e2e", s.file));
};

describe("test suites", () => {
  it("every vitest file runs in exactly one of npm test and npm run test:slow", { timeout: 120_000 }, () => {
    const all = ["lib", "worker", "scripts", "tests", "components"]
      .flatMap((d) => filesUnder(d, /\.test\.tsx?$/))
      .sort();
    const fast = vitestFiles("default");
    const slow = vitestFiles("slow");
    expect(slow.sort()).toEqual([...SLOW_VITEST_FILES].sort());
    expect(fast.filter((f) => slow.includes(f))).toEqual([]);
    expect([...fast, ...slow].sort()).toEqual(all);
  });

  it("every Playwright spec runs in exactly one of them", { timeout: 120_000 }, () => {
    const all = filesUnder("e2e", /\.spec\.ts$/).sort();
    const fast = playwrightFiles("default");
    const slow = playwrightFiles("slow");
    expect(slow.sort()).toEqual(SLOW_E2E_SPECS.map((s) => path.join("e2e", s)).sort());
    expect(fast.filter((f) => slow.includes(f))).toEqual([]);
    expect([...fast, ...slow].sort()).toEqual(all);
  });
});
