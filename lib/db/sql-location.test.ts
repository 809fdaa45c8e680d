import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// AGENTS.md "Where SQL lives": statements are built in the data layer only — a folder's sql.ts, a <topic>-sql.ts
// beside it, or lib/db itself; every other module calls those functions.
const LIB = path.resolve(import.meta.dirname, "..");
const BUILDS_SQL = /\bsql(<|`)|\.(selectFrom|updateTable|insertInto|deleteFrom)\(/;

const isDataLayer = (file: string) => file.startsWith(`db${path.sep}`) || /(^|-)sql\.ts$/.test(path.basename(file));
const isTest = (file: string) => /\.test\.tsx?$/.test(file);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => path.relative(LIB, path.join(e.parentPath, e.name)));
}

describe("where SQL lives", () => {
  it("no module outside the data layer builds a statement", () => {
    const outside = sources(LIB).filter(
      (f) => !isTest(f) && !isDataLayer(f) && BUILDS_SQL.test(readFileSync(path.join(LIB, f), "utf8")),
    );
    expect(outside).toEqual([]);
  });

  it("the check sees a statement where there is one", () => {
    expect(BUILDS_SQL.test("await sql`SELECT 1`.execute(db())")).toBe(true);
    expect(BUILDS_SQL.test('db().selectFrom("task").selectAll()')).toBe(true);
    expect(BUILDS_SQL.test("const { rows } = await sql<Row>`SELECT 1`")).toBe(true);
    expect(BUILDS_SQL.test('import { sql } from "kysely";')).toBe(false);
    expect(isDataLayer(path.join("tasks", "cancel-sql.ts"))).toBe(true);
    expect(isDataLayer(path.join("tasks", "start-task.ts"))).toBe(false);
    expect(isDataLayer(path.join("db", "kysely.ts"))).toBe(true);
  });
});
