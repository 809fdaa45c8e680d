import type { Executor } from "@/lib/db/kysely";
import type { TaskRow } from "./sql";

/** The task's row as it stands in tx: what a writer that used raw SQL announces (emitTaskById). */
export async function readTask(tx: Executor, taskId: string): Promise<TaskRow | undefined> {
  return tx.selectFrom("task").selectAll().where("id", "=", taskId).executeTakeFirst();
}
