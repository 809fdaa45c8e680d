import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { Task, TaskStep } from "@/lib/db/generated/client.ts";
import type { PageText } from "@/lib/research/read-page";
import type { KnownSource } from "./research-read";

/**
 * A driver turns one task into work (docs/architecture.md#drivers). Drivers never write to the
 * database: they return what happened and lib/tasks commits it under the
 * task's lease guard, so a late result from a fenced worker is simply dropped.
 */
export interface SubmitResult {
  remoteRef: string;
  driverData?: Record<string, unknown>;
}

export interface StepContext {
  task: Task;
  /**
   * The user's instructions no step has taken yet (task.pendingUpdates), read by the runtime through the column's
   * schema (lib/tasks/columns.ts): drivers sit below lib/tasks and never read that column themselves.
   */
  pendingUpdates: string[];
  /** Checkpoints already committed, in index order; a step with a row is never re-run. */
  steps: TaskStep[];
  /** Counts each request before it is sent; the step records its own total too. */
  model: LanguageModelV3;
  signal: AbortSignal;
  /**
   * Offers a progress line the model proposed during this step
   * (`send_research_update`). The host admits it within bounds and shows it at
   * once; the answer says which ("shown", or why not) so the model can adapt.
   */
  reportProgress?: (text: string) => Promise<ProgressReply>;
  /** Pages the task already read (earlier steps' commits), in citation order; research reads none of them again. */
  sources?: KnownSource[];
  /** Pages this account may still read this hour (HERALD_LIMIT_PAGES_PER_HOUR), across all its tasks. */
  accountPagesLeft?: number;
  /** Shows a host-worded progress line at once ("Searching the web for …"), committed under the lease guard. */
  announce?: (text: string) => Promise<void>;
  /**
   * Counts one web search against the task's budget (driverData.searches,
   * HERALD_RESEARCH_MAX_SEARCHES), committed before the search is made, so a
   * step that crashes after searching still spent it. False: the budget is
   * spent or the lease is gone; make no search.
   */
  countSearch?: () => Promise<boolean>;
}

export type ProgressReply = "shown" | "empty" | "too_many" | "too_soon" | "repeat" | "lost";

export interface StepOutcome {
  /** A checkpoint (native drivers): a step with a row is never run again. */
  step?: { index: number; kind: string; input: unknown; output: unknown; modelRequests: number };
  /** A progress proposal (ResearchProgress), shown as a `progress` message. */
  progress?: string;
  /**
   * Pages this step read, numbered on from ctx.sources: recorded (task_source)
   * in the step's commit, so a crash before it leaves nothing and the step
   * reads them again; after it, no step reads them again.
   */
  sources?: (PageText & { n: number })[];
  /** A body to publish (PublishedBody); immutable once committed. */
  publish?: { partial: boolean; content: string };
  /** Instructions consumed by this step, removed from task.pendingUpdates on commit. */
  consumedUpdates?: number;
  /** The final body is published: the task succeeded. */
  finished?: boolean;
  /** Steps done of steps planned, for the progress bar and its ETA (drivers that know their plan). */
  count?: { done: number; total: number };
  /**
   * Remote drivers: the remote task's state as of this poll. `queued`: the
   * remote accepted the work but has not started it (drivers with `reportsStart`).
   */
  status?: "queued" | "running" | "input_required" | "failed" | "cancelled";
  inputRequest?: unknown;
  error?: string;
  /** Poll again after this long; finite and positive (remote drivers). Default: at once. */
  pollAfterMs?: number;
  /**
   * Merged into task.driverData with the poll's commit, so driver bookkeeping
   * (e.g. how many updates reached the remote) moves with what it describes.
   */
  driverState?: Record<string, unknown>;
  /**
   * Nothing happened yet: come back after `ms` without holding a worker slot
   * (native pacing). `driverState` is merged into task.driverData so the next
   * claim knows the wait is over. Exclusive with every other field.
   */
  defer?: { ms: number; driverState: Record<string, unknown> };
}

export interface TerminalSnapshot {
  status: "succeeded" | "failed" | "cancelled";
  error?: string;
}

/** One remote task as the remote's own list shows it (orphan reconciliation). */
export interface RemoteListing {
  remoteRef: string;
  /** Still working or waiting: an untracked one costs the remote something until cancelled. */
  active: boolean;
}

export interface Driver {
  submit(task: Task, signal: AbortSignal): Promise<SubmitResult>;
  /** One unit of work (native) or one poll of the remote task (remote drivers). */
  step(ctx: StepContext): Promise<StepOutcome>;
  /** Stops the work; resolves with the terminal status actually reached (it may have finished first). */
  cancel(task: Task, signal: AbortSignal): Promise<TerminalSnapshot>;
  /**
   * cancel() can find the remote work of a task whose handle was never stored
   * (a worker died between the remote create and the commit), so the cancel
   * loop asks it even without a remoteRef.
   */
  findsUnstoredWork?: boolean;
  /**
   * A claim does not start the task: it stays `queued` until a step reports
   * anything but `queued` (the remote started it, or finished, or asks).
   */
  reportsStart?: boolean;
  /** step() is handed the pages the task already read (ctx.sources) and may return new ones (web research). */
  readsSources?: boolean;
  /** Whether step() honours task.pendingUpdates (update(message)); others answer 409. */
  acceptsUpdates?: boolean;
  /** Hands the user's answer to a task waiting in input_required. */
  answer?(task: Task, response: string, signal: AbortSignal): Promise<void>;
  /**
   * Consecutive transient errors before the task fails. Native work that keeps
   * failing is broken; a remote that keeps failing may come back, so remote
   * drivers keep polling with backoff (Infinity) and report degraded tracking.
   */
  maxConsecutiveErrors?: number;
  /**
   * The remote tasks the remote lists to Herald's credentials, or null when it
   * cannot list them. The orphan reaper cancels active ones no task row tracks
   * (a worker died between the remote create and the stored handle and the
   * protocol has no idempotency key to adopt them by).
   */
  listRemote?(signal: AbortSignal): Promise<RemoteListing[] | null>;
  /** Cancels a remote task no row tracks (see listRemote); resolves once the remote accepted. */
  cancelUntracked?(remoteRef: string, signal: AbortSignal): Promise<void>;
}

/** Consecutive poll errors after which the user is told tracking is degraded. */
export const TRACKING_DEGRADED_AFTER = 3;
