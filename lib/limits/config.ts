/**
 * Per-account limits (DESIGN: every account may be hostile). Anyone can sign
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
}

const DEFAULTS: Limits = {
  activeTasks: 10,
  taskStartsPerMinute: 30,
  messagesPerMinute: 60,
  queuedTurns: 10,
  slotsPerLoop: 3,
};

const ENV: Record<keyof Limits, string> = {
  activeTasks: "HERALD_LIMIT_ACTIVE_TASKS",
  taskStartsPerMinute: "HERALD_LIMIT_TASK_STARTS_PER_MINUTE",
  messagesPerMinute: "HERALD_LIMIT_MESSAGES_PER_MINUTE",
  queuedTurns: "HERALD_LIMIT_QUEUED_TURNS",
  slotsPerLoop: "HERALD_LIMIT_SLOTS_PER_LOOP",
};

export const limitsOff = () => process.env.HERALD_LIMITS === "off";

/** Read on every call: tests and operators change env without a restart of the module graph. */
export function limits(): Limits {
  const out = { ...DEFAULTS };
  for (const key of Object.keys(ENV) as (keyof Limits)[]) {
    const raw = process.env[ENV[key]];
    if (raw === undefined || raw === "") continue;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${ENV[key]} must be a positive integer, got "${raw}"`);
    out[key] = n;
  }
  if (limitsOff()) for (const key of Object.keys(out) as (keyof Limits)[]) out[key] = Number.MAX_SAFE_INTEGER;
  return out;
}

/**
 * `options.simulate` (research pacing) is a test and benchmark lever; on a
 * public server it would let an account hold slots for hours.
 */
export const simulateAllowed = () => process.env.HERALD_ALLOW_SIMULATE === "1";
export const SIMULATE_MAX_STEPS = 50;
export const SIMULATE_MAX_STEP_MS = 60_000;
