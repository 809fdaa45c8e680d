import { Prisma } from "@/lib/db/generated/client.ts";

/**
 * A constant list of column values as SQL literals (`'a', 'b'`), for `IN (…)`
 * beside the status constants it comes from (lib/contract/task.ts, …), so no
 * list is retyped in SQL. Literals, not parameters: the planner can only match a
 * partial index on status to literal values, and a statement built at module
 * load keeps one text per call (PREPARED). Values are plain words, so quoting
 * them cannot go wrong; anything else is a programming error.
 */
export function sqlList(values: readonly string[]): Prisma.Sql {
  if (values.length === 0) throw new Error("sqlList: an empty list matches nothing");
  for (const v of values) if (!/^[a-z_]+$/.test(v)) throw new Error(`sqlList: not a plain word: ${JSON.stringify(v)}`);
  return Prisma.raw(values.map((v) => `'${v}'`).join(", "));
}
