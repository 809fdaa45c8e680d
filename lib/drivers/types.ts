import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { Task, TaskStep } from "@/lib/db/generated/client.ts";

/**
 * A driver turns one task into work (DESIGN §4). Drivers never write to the
 * database: they return what happened and lib/tasks commits it under the
 * task's lease guard, so a late result from a fenced worker is simply dropped.
 */
export interface SubmitResult {
  remoteRef: string;
  driverData?: Record<string, unknown>;
}

export interface StepContext {
  task: Task;
  /** Checkpoints already committed, in index order; a step with a row is never re-run. */
  steps: TaskStep[];
  /** Counts each request before it is sent; the step records its own total too. */
  model: LanguageModelV3;
  signal: AbortSignal;
}

export interface StepOutcome {
  step: { index: number; kind: string; input: unknown; output: unknown; modelRequests: number };
  /** A progress proposal (ResearchProgress), shown as a `progress` message. */
  progress?: string;
  /** A body to publish (PublishedBody); immutable once committed. */
  publish?: { partial: boolean; content: string };
  /** Instructions consumed by this step, removed from task.pendingUpdates on commit. */
  consumedUpdates?: number;
  finished?: boolean;
}

export interface TerminalSnapshot {
  status: "succeeded" | "failed" | "cancelled";
  error?: string;
}

export interface Driver {
  submit(task: Task, signal: AbortSignal): Promise<SubmitResult>;
  step(ctx: StepContext): Promise<StepOutcome>;
  cancel(task: Task, signal: AbortSignal): Promise<TerminalSnapshot>;
}

/** A deterministic contract violation: retrying cannot help, the task fails. */
export class DriverProtocolError extends Error {}
