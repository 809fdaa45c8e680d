import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { env } from "@/lib/config/env";

// Where Herald keeps its state on disk, and who may read it.

export const isRoot = () => process.getuid?.() === 0;

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Herald's data dir: `$HERALD_DATA_DIR` or `<project root>/.data`, absolute. */
export function resolveDataDir(): string {
  return path.resolve(env("HERALD_DATA_DIR") ?? path.join(PROJECT_ROOT, ".data"));
}

/** The embedded cluster lives in a subdirectory so other state (auth secret, …) can sit beside it. */
export function resolvePgDataDir(): string {
  return path.join(resolveDataDir(), "pg");
}

/**
 * Creates Herald's data dir for its owner only (0700), or tightens an existing one,
 * and takes group/other access away from the files directly in it (auth secret,
 * logs, pid records). As root the postgres user must be able to pass through to
 * pg/, so o+x is left alone there (ensureTraversable adds it when needed).
 */
export async function secureDataDir(dir: string, log: (s: string) => void = () => {}): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const allowed = isRoot() ? 0o701 : 0o700;
  const st = await fs.stat(dir);
  if ((st.mode & 0o777 & ~allowed) !== 0) {
    await fs.chmod(dir, st.mode & allowed);
    log(
      `chmod ${(st.mode & allowed).toString(8)} ${dir} (was ${(st.mode & 0o777).toString(8)}: it holds the auth secret and logs)`,
    );
  }
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(dir, entry.name);
    const mode = (await fs.stat(file)).mode & 0o777;
    if (mode & 0o077) await fs.chmod(file, mode & 0o700);
  }
}

export async function ensureTraversable(dir: string, log: (s: string) => void): Promise<void> {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    const st = await fs.stat(d).catch(() => null);
    if (st && (st.mode & 0o001) === 0) {
      await fs.chmod(d, (st.mode & 0o7777) | 0o001);
      log(`chmod o+x ${d} (the postgres user must be able to reach its data dir and binaries)`);
    }
    if (path.dirname(d) === d) break;
  }
}
