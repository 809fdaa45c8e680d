import { sql, type RawBuilder } from "kysely";

/**
 * A constant list of column values as SQL literals in parentheses (`('a', 'b')`), for `IN …` beside the status
 * constants it comes from (lib/contract/task.ts, …), so no list is retyped in SQL:
 * `eb("status", "not in", literals(TERMINAL_STATUSES))`, or in a `sql` template. Literals, not parameters: the
 * planner can only match a partial index on status to literal values, and the statement keeps one text (`prepared`).
 * Values are plain words, so quoting them cannot go wrong; anything else is a programming error.
 */
export function literals<T extends string>(values: readonly T[]): RawBuilder<T> {
  return sql.raw<T>(`(${literalText(values)})`);
}

function literalText(values: readonly string[]): string {
  if (values.length === 0) throw new Error("literals: an empty list matches nothing");
  for (const v of values) if (!/^[a-z_]+$/.test(v)) throw new Error(`literals: not a plain word: ${JSON.stringify(v)}`);
  return values.map((v) => `'${v}'`).join(", ");
}
