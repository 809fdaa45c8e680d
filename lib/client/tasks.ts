// Background-task list logic for the sheet, kept free of React and the DOM so
// it can be unit-tested in node. The same fact about a task can arrive through
// a poll, a feed event, a replay after reconnect or a cancel response, in any
// order: every function here is idempotent and lets the newest `updatedAt` win.

import { ACTIVE_STATUSES, type PublicTask, type TaskStatus } from "@/lib/contract/task";

export type { PublicTask, TaskStatus };

// lib/contract/task.ts has no runtime imports, so the server's definition is shared as is.
const ACTIVE: ReadonlySet<TaskStatus> = new Set<TaskStatus>(ACTIVE_STATUSES);

export function isTaskActive(status: TaskStatus): boolean {
  return ACTIVE.has(status);
}

/** Poll fast while something can change on its own, slowly otherwise (docs/architecture.md#planes). */
export const ACTIVE_POLL_MS = 3000;
export const IDLE_POLL_MS = 15_000;

export function taskRefetchInterval(tasks: readonly Pick<PublicTask, "status">[] | undefined | null): number {
  return tasks?.some((t) => isTaskActive(t.status)) ? ACTIVE_POLL_MS : IDLE_POLL_MS;
}

/** The list a sheet shows: one conversation's tasks, or all of the account's (`null`). */
export type TaskScope = string | null;

export function inScope(task: Pick<PublicTask, "conversationId">, scope: TaskScope): boolean {
  return scope === null || task.conversationId === scope;
}

function time(iso: string | null | undefined): number {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(t) ? 0 : t;
}

/** Same order as the server: newest update first, then id descending. */
export function compareTasks(a: PublicTask, b: PublicTask): number {
  return time(b.updatedAt) - time(a.updatedAt) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/**
 * Whether the candidate should replace the copy we have: a newer updatedAt, or
 * the same updatedAt with different content — one server transaction can
 * announce a task twice with one timestamp (status, then its notification
 * state), and feed events arrive in commit order, so the later copy is the
 * truth. An identical copy changes nothing (same array back, no re-render).
 */
export function isNewer(candidate: PublicTask, current: PublicTask): boolean {
  const a = time(candidate.updatedAt);
  const b = time(current.updatedAt);
  if (a !== b) return a > b;
  return (Object.keys(candidate) as (keyof PublicTask)[]).some(
    (k) => JSON.stringify(candidate[k]) !== JSON.stringify(current[k]),
  );
}

/**
 * Applies one task update (feed event, cancel response) to a cached list.
 * Returns the same array when nothing changes, so React Query doesn't notify.
 */
export function applyTaskUpdate(
  list: readonly PublicTask[] | undefined,
  task: PublicTask,
  scope: TaskScope,
): PublicTask[] | undefined {
  if (!list) return list as undefined;
  if (!inScope(task, scope)) return list as PublicTask[];
  const index = list.findIndex((t) => t.id === task.id);
  if (index >= 0 && !isNewer(task, list[index])) return list as PublicTask[];
  const next = index >= 0 ? list.filter((_, i) => i !== index) : [...list];
  next.push(task);
  return next.sort(compareTasks);
}

/**
 * Combines a fresh snapshot with what the client learned while it was in
 * flight: per id the newest copy wins, and tasks the snapshot can't know yet
 * (updated after everything it contains) are kept. `seen` are copies the client
 * was told of with no list loaded to patch (a list's first fetch was in flight).
 */
export function mergeTaskSnapshot(
  cached: readonly PublicTask[] | undefined,
  fetched: readonly PublicTask[],
  scope: TaskScope,
  seen: Iterable<PublicTask> = [],
): PublicTask[] {
  const known = new Map<string, PublicTask>();
  for (const task of [...(cached ?? []), ...seen]) {
    const other = known.get(task.id);
    // A patched list holds the very object `seen` does: no field-by-field comparison on every poll.
    if (!other || (other !== task && isNewer(task, other))) known.set(task.id, task);
  }
  const result = new Map<string, PublicTask>();
  let newestFetched = 0;
  for (const task of fetched) {
    if (!inScope(task, scope) || result.has(task.id)) continue;
    newestFetched = Math.max(newestFetched, time(task.updatedAt));
    const local = known.get(task.id);
    result.set(task.id, local && !isNewer(task, local) ? local : task);
  }
  for (const task of known.values()) {
    if (!result.has(task.id) && inScope(task, scope) && time(task.updatedAt) > newestFetched) result.set(task.id, task);
  }
  const merged = [...result.values()].sort(compareTasks);
  // Keep the cached array when equal so an idle poll re-renders nothing.
  if (cached && cached.length === merged.length && cached.every((t, i) => t === merged[i]))
    return cached as PublicTask[];
  return merged;
}

export function splitTasks(list: readonly PublicTask[]): { active: PublicTask[]; recent: PublicTask[] } {
  const active: PublicTask[] = [];
  const recent: PublicTask[] = [];
  for (const task of list) (isTaskActive(task.status) ? active : recent).push(task);
  return { active, recent };
}

export function countActive(list: readonly PublicTask[] | undefined): number {
  return list ? list.filter((t) => isTaskActive(t.status)).length : 0;
}

/**
 * What changed status since the last observation, for the live region. Tasks
 * seen for the first time are recorded silently: a list loading (or a new
 * scope) is not news, and re-reading the same state announces nothing.
 */
export function statusChanges(
  known: ReadonlyMap<string, TaskStatus>,
  list: readonly PublicTask[],
): { known: Map<string, TaskStatus>; changed: PublicTask[] } {
  const next = new Map(known);
  const changed: PublicTask[] = [];
  // Oldest update first, so announcements come in the order things happened.
  for (const task of [...list].reverse()) {
    const before = known.get(task.id);
    if (before !== undefined && before !== task.status) changed.push(task);
    next.set(task.id, task.status);
  }
  return { known: next, changed };
}

/** A cancel is shown as in progress from the click until the task is terminal. */
export function isCancelling(task: Pick<PublicTask, "status" | "cancelRequested">, pending: boolean): boolean {
  return isTaskActive(task.status) && (task.cancelRequested || pending);
}

/** Merges the public fields of a newer list copy into a cached detail (publications etc. stay until refetched). */
export function applyTaskToDetail<T extends PublicTask>(detail: T | undefined, task: PublicTask): T | undefined {
  if (!detail || detail.id !== task.id || !isNewer(task, detail)) return detail;
  return { ...detail, ...task };
}
