// What a conversation shows, in order, from what the browser holds: stored
// messages, live previews of replies, and the user's sends not stored yet.

import type { PublicMessage } from "@/lib/contract/shapes";
import type { RunEntry } from "./cache";
import type { OutgoingMessage } from "./outbox";
import type { StreamingText } from "./streams";

export type ConversationItem =
  | { type: "message"; key: string; message: PublicMessage }
  | { type: "progress"; key: string; messages: PublicMessage[]; active: boolean }
  | { type: "stream"; key: string; stream: StreamingText }
  | { type: "outgoing"; key: string; entry: OutgoingMessage };

/** Each task's progress lines as one group, and the tasks that have ended. */
function progressGroups(messages: readonly PublicMessage[]) {
  const groups = new Map<string, PublicMessage[]>();
  const endedTasks = new Set<string>();
  for (const m of messages) {
    if (m.kind === "progress") {
      const key = m.taskId ?? m.id;
      const list = groups.get(key);
      if (list) list.push(m);
      else groups.set(key, [m]);
    } else if (m.kind === "terminal" && m.taskId) {
      endedTasks.add(m.taskId);
    }
  }
  return { groups, endedTasks };
}

/**
 * Stored messages in seq order, with each task's progress folded into one
 * entry at the position of its latest update, then live previews of replies.
 * A send not stored yet sits right after the message that was newest when it
 * was written (`afterSeq`) and any reply that was streaming in then
 * (`afterRuns`): what arrived later (a notice while offline, a message sent
 * from another tab) goes below it, as it came later.
 */
export function buildConversationItems(
  messages: readonly PublicMessage[],
  streams: readonly StreamingText[],
  outgoing: readonly OutgoingMessage[],
): ConversationItem[] {
  const { groups, endedTasks } = progressGroups(messages);
  const storedClientIds = new Set(messages.map((m) => m.clientMessageId).filter(Boolean));
  const pending = outgoing.filter((entry) => !storedClientIds.has(entry.clientMessageId));
  const items: ConversationItem[] = [];
  // Flushes the unsent entries written before `m`: a reply already streaming in when one was written stays above it.
  const pendingUpTo = (m: Pick<PublicMessage, "seq" | "runId"> | null) => {
    while (
      pending.length &&
      (!m || (pending[0].afterSeq < m.seq && !(m.runId && pending[0].afterRuns.includes(m.runId))))
    ) {
      const entry = pending.shift()!;
      items.push({ type: "outgoing", key: `out:${entry.clientMessageId}`, entry });
    }
  };
  for (const m of messages) {
    pendingUpTo(m);
    if (m.kind !== "progress") {
      items.push({ type: "message", key: m.id, message: m });
      continue;
    }
    const groupKey = m.taskId ?? m.id;
    const group = groups.get(groupKey) ?? [m];
    if (group[group.length - 1].id !== m.id) continue;
    const active = m.taskId ? !endedTasks.has(m.taskId) : false;
    // Keyed by task so its open/closed state survives new updates moving it down.
    items.push({ type: "progress", key: `progress:${groupKey}`, messages: group, active });
  }

  const storedRuns = new Set(messages.filter((m) => m.kind === "assistant" && m.runId).map((m) => m.runId));
  for (const stream of streams) {
    if (!storedRuns.has(stream.runId) && stream.text)
      items.push({ type: "stream", key: `stream:${stream.runId}`, stream });
  }
  pendingUpTo(null);
  return items;
}

/** The newest chat turn of the conversation, to say when it failed without a reply. */
export function latestChatRun(runs: readonly RunEntry[]): RunEntry | null {
  let latest: RunEntry | null = null;
  for (const run of runs) {
    if (run.kind !== "chat") continue;
    if (!latest || Date.parse(run.createdAt) > Date.parse(latest.createdAt)) latest = run;
  }
  return latest;
}
