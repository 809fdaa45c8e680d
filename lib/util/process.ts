import { readFileSync, readdirSync } from "node:fs";
import { sleep } from "./sleep";

// Process helpers for supervising children by pid (Linux /proc).

export function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: exists, owned by someone else.
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  // A zombie (dead, not yet reaped by whoever adopted it) still answers kill(0).
  const stat = procStat(pid);
  return stat === null || stat.state !== "Z";
}

export async function waitGone(pids: number[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(isAlive)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

// sysconf(_SC_CLK_TCK), the unit of /proc's CPU times: 100 on every Linux this runs on.
const CLOCK_TICKS_PER_SECOND = 100;

/** State, parent and CPU used so far (user + system, ms) of a process; null when it is gone or there is no /proc. */
export function procStat(pid: number): { state: string; ppid: number; cpuMs: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may itself contain spaces or ')'.
    const rest = s.slice(s.lastIndexOf(")") + 2).split(" ");
    // Fields 3, 4, 14 and 15 of proc(5): state, ppid, utime, stime.
    return {
      state: rest[0]!,
      ppid: Number(rest[1]),
      cpuMs: ((Number(rest[11]) + Number(rest[12])) * 1000) / CLOCK_TICKS_PER_SECOND,
    };
  } catch {
    return null;
  }
}

export function childPids(pid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  return entries
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((p) => procStat(p)?.ppid === pid);
}
