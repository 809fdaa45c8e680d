import type { ApThread } from "@/lib/contract/ap";
import { toApThread } from "./project";
import { selectThreads } from "./sql";
import { threadTasks } from "./thread-access";

/**
 * The account's threads whose metadata contains the given pairs (jsonb @>),
 * newest first. A supervisor looks its own idempotency key up this way before
 * creating a thread again after a crash.
 */
export async function searchThreads(
  ownerId: string,
  q: { metadata?: Record<string, unknown>; ids?: string[]; limit?: number; offset?: number },
): Promise<ApThread[]> {
  const rows = await selectThreads(ownerId, q);
  return Promise.all(rows.map(async (c) => toApThread(c, await threadTasks(ownerId, c.id))));
}
