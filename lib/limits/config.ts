import { env } from "@/lib/config/env";

/**
 * Per-account limits (every account may be hostile: docs/operations.md#limits-and-abuse-resistance). Anyone can sign
 * up, so no single account may take more than its share of workers, database
 * or money. Each limit is an env var; `HERALD_LIMITS=off` lifts them all (for
 * benchmarks that load one account on purpose).
 */
export interface Limits {
  /** Background tasks not yet terminal (submitted … input_required). */
  activeTasks: number;
  /** Tasks created in any rolling minute. */
  taskStartsPerMinute: number;
  /** User messages accepted in any rolling minute. */
  messagesPerMinute: number;
  /** Chat turns waiting or running across the account's conversations. */
  queuedTurns: number;
  /** Leases one account may hold at once in each loop, across all workers. */
  slotsPerLoop: number;
  /** Conversations created in any rolling minute (Agent Protocol threads are conversations). */
  conversationsPerMinute: number;
  /** Conversations not deleted. */
  conversations: number;
  /** Conversation searches in a fixed minute window. */
  searchesPerMinute: number;
  /** Web pages the account's research tasks read in any rolling hour: no account turns Herald into its crawler. */
  pagesPerHour: number;
}

export const limitsOff = () => env("HERALD_LIMITS") === "off";

/** Read on every call: tests and operators change env without a restart of the module graph. */
export function limits(): Limits {
  if (limitsOff()) {
    const n = Number.MAX_SAFE_INTEGER;
    return {
      activeTasks: n,
      taskStartsPerMinute: n,
      messagesPerMinute: n,
      queuedTurns: n,
      slotsPerLoop: n,
      conversationsPerMinute: n,
      conversations: n,
      searchesPerMinute: n,
      pagesPerHour: n,
    };
  }
  return {
    activeTasks: env("HERALD_LIMIT_ACTIVE_TASKS"),
    taskStartsPerMinute: env("HERALD_LIMIT_TASK_STARTS_PER_MINUTE"),
    messagesPerMinute: env("HERALD_LIMIT_MESSAGES_PER_MINUTE"),
    queuedTurns: env("HERALD_LIMIT_QUEUED_TURNS"),
    slotsPerLoop: env("HERALD_LIMIT_SLOTS_PER_LOOP"),
    conversationsPerMinute: env("HERALD_LIMIT_CONVERSATIONS_PER_MINUTE"),
    conversations: env("HERALD_LIMIT_CONVERSATIONS"),
    searchesPerMinute: env("HERALD_LIMIT_SEARCHES_PER_MINUTE"),
    pagesPerHour: env("HERALD_LIMIT_PAGES_PER_HOUR"),
  };
}

/**
 * `options.simulate` (research pacing) is a test and benchmark lever. Pacing
 * holds no worker slot, but on a public server it would still let an account
 * script tasks that look busy for days while doing nothing.
 */
export const simulateAllowed = () => env("HERALD_ALLOW_SIMULATE") === "1";
