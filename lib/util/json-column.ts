import type { z } from "zod";
import { log } from "./log";

/**
 * Reads a JSON column through its schema. Prisma and `pg` hand a JSON column back as any JSON, so a row written by an
 * older version or by hand would otherwise reach the code unchecked. A value the schema rejects is read as the
 * column's empty value — what the caller already does for a missing one — and logged, so it is noticed, not hidden.
 * `column` is code-chosen ("task.driverData (agent)"); the value itself never reaches the log.
 */
export function readJsonColumn<T>(column: string, schema: z.ZodType<T>, value: unknown, empty: T, taskId?: string): T {
  if (value === null || value === undefined) return empty;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const at = parsed.error.issues
    .map((i) => `${i.path.length ? i.path.map(String).join(".") : "(root)"}: ${i.code}`)
    .slice(0, 3);
  log("json-column").warn({ ...(taskId ? { taskId } : {}) }, `unreadable ${column} read as empty (${at.join("; ")})`);
  return empty;
}
