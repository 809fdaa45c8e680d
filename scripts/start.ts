// `npm start` / `npm run dev` (docs/operations.md#running-herald): database (embedded unless DATABASE_URL),
// migrations, auth secret, build when stale, then web + N workers (`--workers N`, HERALD_WORKERS).
// Ctrl-C/SIGTERM stops the children first and the database last. A child or the embedded
// PostgreSQL that dies is restarted with backoff (docs/operations.md#supervision); one that
// crash-loops is given up: a worker with a message (the web server stays up), web or the
// database by stopping everything.
// The web process is scripts/server.ts (Next behind our own HTTP server, which decides
// the client address), listening on HOST (default 127.0.0.1) and PORT.

import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync, readdirSync, readFileSync, statSync, type WriteStream } from "node:fs";
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import { isIP } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseTrustedProxies } from "../lib/auth/client-ip";
import { checkEnv, env, EnvError } from "../lib/config/env";
import { resolveDataDir, resolvePgDataDir, secureDataDir } from "../lib/db/data-dir";
import { isAlive } from "../lib/util/process";
import { within } from "../lib/util/within";
import { DatabaseSetupError, ensureDatabase, type DatabaseHandle } from "../lib/db/ensure";
import { sleep } from "../lib/util/sleep";
import { CrashHistory, DEFAULT_POLICY, exitWords } from "./supervisor";
import { log } from "../lib/util/log";

// A bad setting fails here, in one line naming it, before anything starts.
try {
  checkEnv();
} catch (err) {
  if (!(err instanceof EnvError)) throw err;
  console.error(`[herald] ${err.message}`);
  process.exit(1);
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DEV = process.argv.includes("--dev");
const PORT = env("PORT");
// Loopback unless told otherwise: a laptop's Herald is not for the café's network.
const HOST = env("HOST");
// The worker finishes or releases its current step on SIGTERM; give it time before SIGKILL.
const CHILD_GRACE_MS = 20_000;
const KILL_WAIT_MS = 5_000;
// Inputs of `next build`; test files never end up in the bundle.
const BUILD_INPUTS = [
  "app",
  "components",
  "lib",
  "public",
  "package-lock.json",
  "next.config.ts",
  "proxy.ts",
  "postcss.config.mjs",
  "tsconfig.json",
];
const NOT_BUILD_INPUT = /\.(int\.)?test\.[cm]?[jt]sx?$/;

// The supervisor's lines go through the structured logger: formatted on a terminal, JSON lines when piped.
const logger = log("supervisor");
const say = (s: string) => logger.info(s);
const warn = (s: string) => logger.warn(s);

/** `--workers N` wins over HERALD_WORKERS. */
function workerCount(): number {
  const i = process.argv.indexOf("--workers");
  if (i === -1) return env("HERALD_WORKERS");
  const n = Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < 1 || n > 32) {
    console.error("[herald] --workers must be a whole number from 1 to 32");
    process.exit(1);
  }
  return n;
}
const WORKERS = workerCount();

interface Child {
  name: string;
  proc: ChildProcess;
  ownGroup: boolean;
  /** A substring of its command line, to recognise it after a restart. */
  marker: string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}
const children: Child[] = [];
let db: DatabaseHandle | undefined;
let dbStarting: Promise<DatabaseHandle> | undefined;
let pgLog: WriteStream | undefined;
let shuttingDown = false;
let ready = false;
let dataDirForPids: string | undefined;

/** `oneShot` children (next build) are expected to exit; any other exit is a failure. */
function run(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: {
    ownGroup: boolean;
    oneShot?: boolean;
    marker?: string;
    onExit?: (code: number | null, sig: NodeJS.Signals | null) => void;
  },
): Child {
  const proc = spawn(process.execPath, args, {
    cwd: ROOT,
    env,
    stdio: ["ignore", "inherit", "inherit"],
    // Own process group: a terminal Ctrl-C reaches only us, so each child gets exactly
    // one SIGTERM (from us) and shuts down gracefully — the worker treats a second
    // signal as "exit now". It also lets us signal `next` together with its subprocesses.
    detached: opts.ownGroup,
  });
  const exited = new Promise<number | null>((resolve) => {
    proc.once("exit", (code, sig) => {
      resolve(code);
      if (shuttingDown || opts.oneShot) return;
      if (opts.onExit) opts.onExit(code, sig);
      else void shutdown(1, `${name} exited unexpectedly (${exitWords(code, sig)})`);
    });
    proc.once("error", (err) => {
      resolve(null);
      if (!shuttingDown) void shutdown(1, `${name} failed to start: ${err.message}`);
    });
  });
  const child: Child = { name, proc, ownGroup: opts.ownGroup, marker: opts.marker ?? args.join(" "), exited };
  children.push(child);
  return child;
}

function signalChild(child: Child, sig: NodeJS.Signals): void {
  if (!child.proc.pid) return;
  // A group can outlive its leader (next's server process), so only a plain child
  // that has exited is skipped.
  if (!child.ownGroup && (child.proc.exitCode !== null || child.proc.signalCode !== null)) return;
  try {
    // Negative pid: the whole group (next's own worker processes included).
    process.kill(child.ownGroup ? -child.proc.pid : child.proc.pid, sig);
  } catch {
    try {
      child.proc.kill(sig);
    } catch {
      // gone
    }
  }
}

async function shutdown(code: number, reason: string): Promise<never> {
  if (shuttingDown) return new Promise<never>(() => {});
  shuttingDown = true;
  say(`${reason}; stopping…`);
  for (const c of children) signalChild(c, "SIGTERM");
  const allExited = Promise.all(children.map((c) => c.exited));
  if (!(await within(allExited, CHILD_GRACE_MS))) {
    say(`children still running after ${CHILD_GRACE_MS / 1000} s: killing them`);
    for (const c of children) signalChild(c, "SIGKILL");
    await within(allExited, KILL_WAIT_MS);
  }
  const handle = db ?? (await dbStarting?.catch(() => undefined));
  if (handle?.embedded && !handle.embedded.attached) say("stopping PostgreSQL");
  await handle?.stop().catch((err) => say(`stopping PostgreSQL failed: ${String(err)}`));
  pgLog?.end();
  if (dataDirForPids) await fs.rm(pidFile(dataDirForPids), { force: true }).catch(() => {});
  process.exit(code);
}

let firstSignalAt = 0;
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(sig, () => {
    if (!firstSignalAt) {
      firstSignalAt = Date.now();
      void shutdown(0, `${sig} received`);
      return;
    }
    // Under `tsx scripts/start.ts` one Ctrl-C often arrives twice: from the terminal,
    // and again from tsx's relay when it missed our acknowledgement (a race in its
    // IPC). Only a later one is an impatient user: skip the children's grace period
    // (the database still gets its fast shutdown).
    if (Date.now() - firstSignalAt < 1500) return;
    say(`${sig} again: killing children now`);
    for (const c of children) signalChild(c, "SIGKILL");
  });
}

// ---- leftovers of a SIGKILLed previous run -------------------------------------
// Children live in their own process groups, so if this script is SIGKILLed they
// keep running: web holding the port, worker polling a database that is gone (the
// embedded postgres itself is cleaned up by startEmbeddedPostgres). Record them and
// reap them on the next start, once their recorded parent is dead.

interface PidRecord {
  owner: number;
  children: Array<{ pid: number; name: string; marker: string }>;
}

const pidFile = (dataDir: string) => path.join(dataDir, "start.pids.json");

function cmdline(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return null;
  }
}

async function reapLeftovers(dataDir: string): Promise<void> {
  let record: PidRecord;
  try {
    record = JSON.parse(await fs.readFile(pidFile(dataDir), "utf8")) as PidRecord;
  } catch {
    return;
  }
  if (record.owner !== process.pid && isAlive(record.owner)) return; // another npm start, alive
  const leftovers = record.children.filter((c) => {
    const cmd = cmdline(c.pid);
    // The pid may have been reused: only touch processes that still look like ours.
    return isAlive(c.pid) && cmd !== null && cmd.includes(c.marker);
  });
  for (const c of leftovers) {
    say(`stopping ${c.name} (pid ${c.pid}) left over from a run that was killed`);
    try {
      process.kill(-c.pid, "SIGTERM");
    } catch {
      // gone
    }
  }
  const deadline = Date.now() + CHILD_GRACE_MS;
  while (leftovers.some((c) => isAlive(c.pid)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const c of leftovers.filter((c) => isAlive(c.pid))) {
    try {
      process.kill(-c.pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  await fs.rm(pidFile(dataDir), { force: true });
}

async function recordChildren(dataDir: string): Promise<void> {
  const record: PidRecord = {
    owner: process.pid,
    children: children
      .filter((c) => c.ownGroup && c.proc.pid)
      .map((c) => ({ pid: c.proc.pid!, name: c.name, marker: c.marker })),
  };
  await fs.writeFile(pidFile(dataDir), JSON.stringify(record) + "\n", { mode: 0o600 });
}

// ---- build ------------------------------------------------------------------------

function newestMtime(p: string): number {
  let st;
  try {
    st = statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return NOT_BUILD_INPUT.test(p) ? 0 : st.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(p)) {
    if (entry === "node_modules" || entry.startsWith(".")) continue;
    newest = Math.max(newest, newestMtime(path.join(p, entry)));
  }
  return newest;
}

function buildIsStale(): boolean {
  const buildId = path.join(ROOT, ".next", "BUILD_ID");
  if (!existsSync(buildId)) return true;
  const built = statSync(buildId).mtimeMs;
  return BUILD_INPUTS.some((p) => newestMtime(path.join(ROOT, p)) > built);
}

async function ensureAuthSecret(dataDir: string): Promise<string> {
  const file = path.join(dataDir, "auth-secret");
  const secret = randomBytes(32).toString("base64url");
  try {
    // wx: two concurrent first starts must not end up with different secrets.
    await fs.writeFile(file, secret + "\n", { mode: 0o600, flag: "wx" });
    say(`created ${path.relative(ROOT, file) || file} (BETTER_AUTH_SECRET)`);
    return secret;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  const existing = (await fs.readFile(file, "utf8")).trim();
  if (!existing) throw new Error(`${file} is empty: delete it to get a new secret`);
  return existing;
}

async function waitForHttp(url: string): Promise<void> {
  while (!shuttingDown) {
    try {
      // Any HTTP answer means the server is up; health 503 just means a worker is not beating yet.
      await fetch(url, { signal: AbortSignal.timeout(60_000) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** Where our own health check connects: the listen address, or loopback for a wildcard one. */
function connectHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return isIP(host) === 6 ? `[${host}]` : host;
}

async function main(): Promise<void> {
  // Fail before the database starts, not in the web process after it.
  parseTrustedProxies(env("HERALD_TRUSTED_PROXIES"));
  const dataDir = resolveDataDir();
  await secureDataDir(dataDir, say);
  await reapLeftovers(dataDir);

  if (env("DATABASE_URL")) {
    say(
      env("DATABASE_DIRECT_URL")
        ? "using DATABASE_URL (a pooler; LISTEN and migrations on DATABASE_DIRECT_URL)"
        : "using DATABASE_URL",
    );
  } else {
    // The embedded cluster is reached directly; a direct URL beside it would turn on pooler mode for nothing.
    if (env("DATABASE_DIRECT_URL"))
      throw new DatabaseSetupError(
        "DATABASE_DIRECT_URL is set without DATABASE_URL: set both (a pooler and PostgreSQL behind it) or neither",
      );
    say(
      `starting embedded PostgreSQL in ${path.relative(ROOT, resolvePgDataDir()) || resolvePgDataDir()} (log: ${path.join(path.relative(ROOT, dataDir) || dataDir, "postgres.log")})`,
    );
    pgLog = createWriteStream(path.join(dataDir, "postgres.log"), { flags: "a", mode: 0o600 });
  }
  const started = Date.now();
  const pgLogLine = (line: string) => {
    pgLog?.write(line + "\n");
    if (line.startsWith("initdb: ")) return;
    if (line.startsWith("postgres: ")) {
      // Startup problems, and crashes later on; ordinary query errors stay in the log file.
      const bad = ready ? /\b(PANIC):/ : /\b(WARNING|ERROR|FATAL|PANIC):/;
      if (!shuttingDown && bad.test(line)) console.log(`[db] ${line.slice("postgres: ".length)}`);
      return;
    }
    console.log(`[db] ${line}`);
  };
  dbStarting = ensureDatabase({ detached: true, log: pgLogLine });
  db = await dbStarting;
  if (shuttingDown) return;
  say(
    `database ready in ${Date.now() - started} ms` +
      (db.applied.length ? `; applied migrations: ${db.applied.join(", ")}` : "") +
      (db.embedded?.attached ? " (already running for another process)" : ""),
  );
  watchDatabase(db, pgLogLine, dataDir);

  const authSecret = env("BETTER_AUTH_SECRET") ?? (await ensureAuthSecret(dataDir));
  const authUrl = env("BETTER_AUTH_URL") ?? `http://localhost:${PORT}`;
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: db.url,
    BETTER_AUTH_SECRET: authSecret,
    BETTER_AUTH_URL: authUrl,
    HERALD_DATA_DIR: dataDir,
    PORT: String(PORT),
    HOST,
  };

  const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
  if (!DEV && buildIsStale()) {
    say("build is missing or older than the sources: running next build");
    // Same group as us: a Ctrl-C during the build stops it right away.
    const build = run("next build", [nextBin, "build"], childEnv, { ownGroup: false, oneShot: true });
    const code = await build.exited;
    if (shuttingDown) return;
    children.splice(children.indexOf(build), 1);
    if (code !== 0) return void (await shutdown(1, `next build failed (code ${code})`));
  }
  if (shuttingDown) return;

  // Not `next start`/`next dev`: route handlers cannot see the socket, and sign-in
  // throttling needs the real client address (scripts/server.ts).
  const webEnv = { ...childEnv, NODE_ENV: DEV ? "development" : "production" } as NodeJS.ProcessEnv;
  dataDirForPids = dataDir;
  supervise(
    DEV ? "web (dev)" : "web",
    ["--import", "tsx", "scripts/server.ts", ...(DEV ? ["--dev"] : [])],
    webEnv,
    "scripts/server.ts",
    (why) => void shutdown(1, `${why}; nothing left to serve`),
  );
  for (let i = 1; i <= WORKERS; i++) {
    const name = WORKERS === 1 ? "worker" : `worker-${i}`;
    supervise(name, ["--import", "tsx", "worker/index.ts"], childEnv, "worker/index.ts", (why) =>
      warn(
        `${why}. The web server keeps running; background work waits for another worker (restart Herald to try again).`,
      ),
    );
  }
  await recordChildren(dataDir);

  await waitForHttp(`http://${connectHost(HOST)}:${PORT}/api/health`);
  if (shuttingDown) return;
  ready = true;
  say(`Herald is running at ${authUrl} (Ctrl-C to stop)`);
}

/**
 * Starts a long-running child and keeps it running: an unexpected exit restarts
 * it after a backoff; a crash loop ends in `giveUp` with a line naming it.
 */
function supervise(
  name: string,
  args: string[],
  childEnv: NodeJS.ProcessEnv,
  marker: string,
  giveUp: (why: string) => void,
): void {
  const history = new CrashHistory();
  const start = (): void => {
    const child = run(name, args, childEnv, {
      ownGroup: true,
      marker,
      onExit: (code, sig) => {
        children.splice(children.indexOf(child), 1);
        const how = exitWords(code, sig);
        const decision = history.record(Date.now());
        if (!decision.restart) {
          giveUp(
            `${name} crashed ${decision.recent} times within ${DEFAULT_POLICY.windowMs / 1000} s (last: ${how}); giving up on it — its output is above, prefixed by its own tags`,
          );
          return;
        }
        warn(`${name} exited unexpectedly (${how}); restarting it in ${(decision.delayMs / 1000).toFixed(1)} s`);
        setTimeout(() => {
          if (shuttingDown) return;
          start();
          if (dataDirForPids) void recordChildren(dataDirForPids);
        }, decision.delayMs);
      },
    });
  };
  start();
}

/**
 * The embedded PostgreSQL is restarted on the same data directory and port when
 * it dies, so the URL every child holds stays valid: their pools reconnect, and
 * so does the LISTEN connection (lib/events/listener.ts), without a restart.
 */
function watchDatabase(handle: DatabaseHandle, log: (line: string) => void, dataDir: string): void {
  const embedded = handle.embedded;
  if (!embedded || embedded.attached) return;
  const history = new CrashHistory();
  const watch = (server: NonNullable<DatabaseHandle["embedded"]>) => {
    void server.exited.then(async () => {
      if (shuttingDown) return;
      const decision = history.record(Date.now());
      const logFile = path.join(path.relative(ROOT, dataDir) || dataDir, "postgres.log");
      if (!decision.restart)
        return void shutdown(
          1,
          `PostgreSQL crashed ${decision.recent} times within ${DEFAULT_POLICY.windowMs / 1000} s; giving up (its log: ${logFile})`,
        );
      warn(
        `PostgreSQL exited unexpectedly; restarting it on the same data directory in ${(decision.delayMs / 1000).toFixed(1)} s (its log: ${logFile})`,
      );
      await sleep(decision.delayMs);
      if (shuttingDown) return;
      try {
        db = await ensureDatabase({ detached: true, migrate: false, port: server.port, log });
        say("PostgreSQL is back; web and workers reconnect on their own");
        if (db.embedded) watch(db.embedded);
      } catch (err) {
        void shutdown(1, `PostgreSQL could not be restarted: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
  };
  watch(embedded);
}

main().catch((err) => {
  if (err instanceof DatabaseSetupError) {
    console.error(`[herald] ${err.message}`);
    return void shutdown(1, "startup failed");
  }
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  void shutdown(1, "startup failed");
});
