// The worker and web processes that integration tests start, bundled once per vitest run (tests/global-setup.ts).
// Started through tsx, every process resolves and loads each of its ~180 source files and every package file through
// tsx's loader hooks: 1.1–1.2 s of CPU before its first statement against 0.8 s for the same code as one bundle (2.3 s
// against 1.1 s before the drivers' SDKs were loaded lazily), and the suite starts about a hundred of them on two
// cores (docs/development.md#test-suite-times).
// The bundle is the same source: packages stay external (node loads them as `npm start` does), names are kept, and
// each module still sees its own file as `import.meta.url` (lib/db paths, Prisma's generated client).
import * as esbuild from "esbuild";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";

const ENTRIES = { worker: "worker/index.ts", web: "tests/web-process.ts" } as const;
export type TestProcess = keyof typeof ENTRIES;

/** Where the run's bundles are (set by tests/global-setup.ts, inherited by the test files' processes). */
const BUNDLES = "HERALD_TEST_BUNDLES";

/** Bundles every entry into `outdir` (inside the repository, so the bundles resolve its node_modules). */
export async function bundleTestProcesses(root: string, outdir: string): Promise<void> {
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: ENTRIES,
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    keepNames: true,
    sourcemap: "linked",
    tsconfig: "tsconfig.json",
    logLevel: "warning",
    plugins: [
      {
        name: "own-import-meta-url",
        setup(build) {
          build.onLoad({ filter: /\.tsx?$/ }, async ({ path: file }) => ({
            contents: (await readFile(file, "utf8")).replaceAll(
              "import.meta.url",
              JSON.stringify(pathToFileURL(file).href),
            ),
            loader: file.endsWith(".tsx") ? "tsx" : "ts",
          }));
        },
      },
    ],
  });
  process.env[BUNDLES] = outdir;
}

/**
 * node's arguments for one of the processes: the run's bundle, or the source through tsx where no vitest run built
 * one (benches, scripts).
 */
export function testProcessArgs(name: TestProcess): string[] {
  const dir = process.env[BUNDLES];
  return dir ? ["--enable-source-maps", path.join(dir, `${name}.mjs`)] : ["--import", "tsx", ENTRIES[name]];
}
