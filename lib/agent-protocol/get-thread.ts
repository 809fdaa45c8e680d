import type { ApThread } from "@/lib/contract/ap";
import { toApThread } from "./project";
import { ownThread, threadTasks } from "./thread-access";

export async function getThread(ownerId: string, id: string): Promise<ApThread> {
  const c = await ownThread(ownerId, id);
  return toApThread(c, await threadTasks(ownerId, id));
}
