import { readFileSync, realpathSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { childPids, isAlive, signal, waitGone } from "@/lib/util/process";

/** The pid of the process that owns the running cluster (written beside postmaster.pid). */
export const OWNER_FILE = "herald-owner.pid";
export const STOP_GRACE_MS = 15_000;
export const KILL_GRACE_MS = 5_000;

// A postmaster left behind by a SIGKILLed `npm start`: found, identified as ours, stopped.

export interface LivePostmaster {
  pid: number;
  port: number;
  owner: number;
}

/**
 * Looks at `postmaster.pid`. Returns the running postmaster when a live process
 * (its owner) still uses it. A postmaster whose owner is gone — the parent was
 * SIGKILLed, postgres kept running and would make the next start fail — is shut
 * down; a pid file whose process is gone or is not our postgres is removed.
 */
export async function checkExistingPostmaster(
  dataDir: string,
  log: (s: string) => void,
): Promise<LivePostmaster | null> {
  const pidFile = path.join(dataDir, "postmaster.pid");
  let lines: string[];
  try {
    lines = (await fs.readFile(pidFile, "utf8")).split("\n");
  } catch {
    return null;
  }
  const pid = Number.parseInt(lines[0] ?? "", 10);
  const port = Number.parseInt(lines[3] ?? "", 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid) || !isPostmasterOf(pid, dataDir)) {
    log(`removing stale ${pidFile} (pid ${Number.isNaN(pid) ? "?" : pid} is not our postgres)`);
    await fs.rm(pidFile, { force: true });
    return null;
  }
  const owner = readOwner(dataDir);
  if (owner !== null && isAlive(owner) && Number.isInteger(port)) return { pid, port, owner };

  log(`postgres pid ${pid} for ${dataDir} outlived its owner${owner ? ` (pid ${owner})` : ""}; shutting it down`);
  await killPostmaster(pid, log);
  // A hard-killed postmaster leaves its pid file behind; postgres would trust it.
  await fs.rm(pidFile, { force: true });
  return null;
}

function readOwner(dataDir: string): number | null {
  try {
    const n = Number.parseInt(readFileSync(path.join(dataDir, OWNER_FILE), "utf8"), 10);
    return Number.isInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

async function killPostmaster(pid: number, log: (s: string) => void): Promise<void> {
  // SIGINT = fast shutdown. SIGTERM (smart shutdown) would wait for every client to
  // disconnect, and orphaned clients of a crashed parent may never do that.
  const before = childPids(pid);
  signal(pid, "SIGINT");
  if (await waitGone([pid], STOP_GRACE_MS)) return;
  log(`postgres pid ${pid} ignored fast shutdown for ${STOP_GRACE_MS / 1000} s; killing it`);
  const victims = [pid, ...before, ...childPids(pid)];
  for (const p of victims) signal(p, "SIGKILL");
  // Backends must be gone too: postgres refuses to start while one still holds the
  // old shared memory segment.
  if (!(await waitGone(victims, KILL_GRACE_MS))) {
    throw new Error(`could not stop stale postgres pid ${pid}`);
  }
}

/** Is `pid` a postgres whose `-D` is our data dir? Decided from its command line. */
function isPostmasterOf(pid: number, dataDir: string): boolean {
  let argv: string[];
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    // No procfs (macOS): trust the pid file, which postgres only ever writes for its own data dir.
    return true;
  }
  if (!argv[0] || !path.basename(argv[0]).startsWith("postgres")) return false;
  const i = argv.indexOf("-D");
  const dir = i >= 0 ? argv[i + 1] : undefined;
  return dir !== undefined && samePath(dir, dataDir);
}

function samePath(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  return real(a) === real(b);
}
