import { sql } from "kysely";

// What counts as unread, in one place for appendMessage (one more or not) and
// markRead (a recount). A reader is told once per task moment, not once per row:
// a task's result, its terminal line, its notice and the reply narrating them
// arrive as four messages but are one thing to read. So unread counts moments:
// every reply that belongs to no task is one, and all the unread messages of one
// task (its own, or those of the run narrating it) are one together.
//
// A result promised `at` a moment is not news before that moment: its body and
// "finished" line are written when the work ends (readable in the chat), but the
// signal is the due notice written at the time promised. A failure or a
// stop is said at once, as the notices are.

/**
 * The task a message belongs to: its own, or the task of the notification run
 * that wrote it. `m` is a row of "message"; the alias `r` must be free.
 */
export const momentTaskOf = (m: string) =>
  sql.raw<string | null>(`coalesce(${m}."taskId", (SELECT r."taskId" FROM "run" r WHERE r.id = ${m}."runId"))`);

/**
 * True for a message of task row `t` (null: no task) written while an `at`
 * promise was not yet due and not telling an early end: held back from unread.
 */
export const heldUntilDue = (m: string, t: string) =>
  sql.raw<boolean>(
    `coalesce(${t}."deliveryMode" = 'at' AND ${m}."createdAt" < ${t}."dueAt"` +
      ` AND ${m}.kind <> 'notice' AND NOT (${m}.kind = 'terminal' AND coalesce(${m}.meta->>'status', '') <> 'succeeded'), false)`,
  );

/** Kinds never unread: the reader's own turns (they read everything before them) and progress lines (by the dozen). */
export const SILENT_KINDS = ["user", "progress"] as const;
const silent = SILENT_KINDS.map((k) => `'${k}'`).join(", ");

/** A visible message that may be unread: `m` is a row of "message". */
export const speaks = (m: string) => sql.raw<boolean>(`(NOT ${m}.hidden AND ${m}.kind NOT IN (${silent}))`);
