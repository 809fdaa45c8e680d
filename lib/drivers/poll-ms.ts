import type { Task } from "@/lib/db/generated/client.ts";
import type { StepOutcome } from "./types";

/** Keeps the interval Herald polls at in driverData (the sheet shows it), written only when it changes. */
export function withPollMs(task: Task, o: StepOutcome): StepOutcome {
  const stored = (task.driverData as { pollMs?: unknown } | null)?.pollMs;
  if (o.pollAfterMs === undefined || o.pollAfterMs === stored) return o;
  return { ...o, driverState: { ...o.driverState, pollMs: o.pollAfterMs } };
}
