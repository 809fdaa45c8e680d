import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { secureDataDir } from "./data-dir";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "./embedded";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const EMBEDDED_TS = path.join(ROOT, "lib", "db", "embedded.ts");

async function query<T extends pg.QueryResultRow = pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // An orphan's zombie lingers until its adoptive parent reaps it.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return true;
  }
}

async function waitUntil(cond: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

describe("startEmbeddedPostgres", () => {
  let tmp: string;
  const servers: EmbeddedPostgres[] = [];

  beforeAll(async () => {
    // mkdtemp makes a 0700 root-owned dir when run as root: exercises the o+x fix-up.
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "herald-embedded-test-"));
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it("initialises once, keeps data across restarts, and attaches instead of fighting a live owner", async () => {
    const dataDir = path.join(tmp, "restart");
    const first = await startEmbeddedPostgres({ dataDir, ephemeral: true });
    servers.push(first);
    expect(first.url).toMatch(/^postgresql:\/\/postgres:[0-9a-f]+@127\.0\.0\.1:\d+\/herald$/);
    expect(first.attached).toBe(false);
    await query(first.url, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')");

    // Same process still owns the cluster: a second start must not kill it.
    const second = await startEmbeddedPostgres({ dataDir, ephemeral: true });
    expect(second.attached).toBe(true);
    expect(second.port).toBe(first.port);
    await second.stop();
    expect(await query(first.url, "SELECT v FROM kept")).toEqual([{ v: "still here" }]);

    await first.stop();
    expect(alive(first.pid)).toBe(false);
    const pgVersionMtime = (await fs.stat(path.join(dataDir, "PG_VERSION"))).mtimeMs;

    const again = await startEmbeddedPostgres({ dataDir, ephemeral: true });
    servers.push(again);
    expect(again.attached).toBe(false);
    expect(await query(again.url, "SELECT v FROM kept")).toEqual([{ v: "still here" }]);
    // Not re-initialised.
    expect((await fs.stat(path.join(dataDir, "PG_VERSION"))).mtimeMs).toBe(pgVersionMtime);
    // UTF8, not initdb's SQL_ASCII default under the C locale.
    expect(await query(again.url, "SHOW server_encoding")).toEqual([{ server_encoding: "UTF8" }]);
    await again.stop();
  });

  it("stop() returns promptly when postgres already died", async () => {
    const server = await startEmbeddedPostgres({ dataDir: path.join(tmp, "died"), ephemeral: true });
    servers.push(server);
    process.kill(server.pid, "SIGKILL");
    const t0 = Date.now();
    await server.stop();
    // It used to wait forever; any bound well short of the test's timeout tells the two apart on a loaded machine.
    expect(Date.now() - t0).toBeLessThan(30_000);
    await server.stop(); // idempotent

    // The SIGKILLed postmaster left its pid file: the next start must cope.
    const next = await startEmbeddedPostgres({ dataDir: path.join(tmp, "died"), ephemeral: true });
    servers.push(next);
    expect(await query(next.url, "SELECT 1 AS one")).toEqual([{ one: 1 }]);
    await next.stop();
  });

  it("replaces a postmaster orphaned by a SIGKILLed parent", async () => {
    const dataDir = path.join(tmp, "orphan");
    const code = `
      const { startEmbeddedPostgres } = await import(${JSON.stringify(EMBEDDED_TS)});
      const s = await startEmbeddedPostgres({ dataDir: ${JSON.stringify(dataDir)}, ephemeral: true });
      console.log(JSON.stringify({ pid: s.pid, url: s.url }));
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (c) => (stderr += c));
    let stdout = "";
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (c) => {
        stdout += c;
        const nl = stdout.indexOf("\n");
        if (nl >= 0) resolve(stdout.slice(0, nl));
      });
      child.once("exit", (code) => reject(new Error(`child exited ${code}: ${stderr}`)));
    });
    const orphan = JSON.parse(line) as { pid: number; url: string };

    child.kill("SIGKILL");
    await once(child, "exit");
    // Postgres does not notice its parent's death.
    expect(alive(orphan.pid)).toBe(true);
    await query(orphan.url, "CREATE TABLE survived (v int); INSERT INTO survived VALUES (7)");

    const server = await startEmbeddedPostgres({ dataDir, ephemeral: true });
    servers.push(server);
    expect(server.attached).toBe(false);
    expect(server.pid).not.toBe(orphan.pid);
    expect(await waitUntil(() => !alive(orphan.pid), 1000)).toBe(true);
    expect(await query(server.url, "SELECT v FROM survived")).toEqual([{ v: 7 }]);
    await server.stop();
  });
});

describe("embedded cluster hygiene", () => {
  let tmp: string;

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "herald-embedded-hygiene-"));
  });

  afterAll(async () => {
    await fs.rm(tmp, { recursive: true, force: true });
  });

  async function refuses(url: string): Promise<string | undefined> {
    return query(url, "SELECT 1").then(
      () => undefined,
      (err: { code?: string }) => err.code,
    );
  }

  it("a cluster still on initdb's well-known password gets a generated one, with a log line", async () => {
    const dataDir = path.join(tmp, "legacy");
    const first = await startEmbeddedPostgres({ dataDir, ephemeral: true });
    // What a cluster from before herald-password existed looks like.
    await query(first.url, "ALTER ROLE postgres PASSWORD 'password'");
    await first.stop();
    await fs.rm(path.join(dataDir, "herald-password"));

    const lines: string[] = [];
    const again = await startEmbeddedPostgres({ dataDir, ephemeral: true, log: (l) => lines.push(l) });
    try {
      const password = decodeURIComponent(new URL(again.url).password);
      expect(password).not.toBe("password");
      expect(password).toMatch(/^[0-9a-f]{36}$/);
      expect(lines.some((l) => /well-known password; replaced it/.test(l))).toBe(true);
      const file = path.join(dataDir, "herald-password");
      expect(readFileSync(file, "utf8").trim()).toBe(password);
      expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
      const legacy = new URL(again.url);
      legacy.password = "password";
      expect(await refuses(legacy.toString())).toBe("28P01");
      expect(await query(again.url, "SELECT 1 AS ok")).toEqual([{ ok: 1 }]);
    } finally {
      await again.stop();
    }
  });

  it("a replacement cut short after the role changed is finished on the next start", async () => {
    const dataDir = path.join(tmp, "half-rotated");
    const first = await startEmbeddedPostgres({ dataDir, ephemeral: true });
    // The crash window: new password written aside and already set on the role, not yet renamed into place.
    await query(first.url, "ALTER ROLE postgres PASSWORD 'abc123pending'");
    await first.stop();
    await fs.rm(path.join(dataDir, "herald-password"));
    await fs.writeFile(path.join(dataDir, "herald-password.new"), "abc123pending\n", { mode: 0o600 });

    const again = await startEmbeddedPostgres({ dataDir, ephemeral: true });
    try {
      expect(decodeURIComponent(new URL(again.url).password)).toBe("abc123pending");
      expect(readFileSync(path.join(dataDir, "herald-password"), "utf8").trim()).toBe("abc123pending");
      await expect(fs.stat(path.join(dataDir, "herald-password.new"))).rejects.toThrow();
    } finally {
      await again.stop();
    }
  });

  it("secureDataDir makes the data dir owner-only and tightens what is already there", async () => {
    const dir = path.join(tmp, "data");
    await fs.mkdir(dir, { mode: 0o755 });
    await fs.chmod(dir, 0o755);
    await fs.writeFile(path.join(dir, "postgres.log"), "x", { mode: 0o644 });
    await fs.chmod(path.join(dir, "postgres.log"), 0o644);
    await secureDataDir(dir);
    const allowed = process.getuid?.() === 0 ? 0o701 : 0o700;
    expect((await fs.stat(dir)).mode & 0o777 & ~allowed).toBe(0);
    expect((await fs.stat(path.join(dir, "postgres.log"))).mode & 0o777).toBe(0o600);

    const fresh = path.join(tmp, "fresh", "data");
    await secureDataDir(fresh);
    expect((await fs.stat(fresh)).mode & 0o777).toBe(0o700);
  });
});
