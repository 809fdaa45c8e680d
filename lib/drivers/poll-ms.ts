import { z } from "zod";
import type { Task } from "@/lib/db/generated/client.ts";
import { readJsonColumn } from "@/lib/util/json-column";
import type { StepOutcome } from "./types";

/** The part of every remote driver's task.driverData this module keeps: the interval polled at last. */
const pollDataSchema = z.object({ pollMs: z.number().optional() });

/** Keeps the interval Herald polls at in driverData (the sheet shows it), written only when it changes. */
export function withPollMs(task: Task, o: StepOutcome): StepOutcome {
  const stored = readJsonColumn("task.driverData (pollMs)", pollDataSchema, task.driverData, {}, task.id).pollMs;
  if (o.pollAfterMs === undefined || o.pollAfterMs === stored) return o;
  return { ...o, driverState: { ...o.driverState, pollMs: o.pollAfterMs } };
}
