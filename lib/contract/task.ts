import type { Task } from "@/lib/db/generated/client.ts";
import { errorCodeOf, type ErrorCategory } from "@/lib/errors/categories";

const ACTIVE = ["submitted", "queued", "running", "updating", "input_required"] as const;
/** deadline_exceeded: stopped by its deadline (no overtime allowed, or the overtime budget spent); partials kept. */
const TERMINAL = ["succeeded", "failed", "cancelled", "deadline_exceeded"] as const;
export type TerminalStatus = (typeof TERMINAL)[number];
export type TaskStatus = (typeof ACTIVE)[number] | TerminalStatus;

/**
 * The one definition of each closed set a task column holds. The database
 * enforces the same sets (CHECK constraints, lib/db/statuses.int.test.ts
 * compares them) and SQL builds its lists from these (`literals`), never retyped.
 */
export const ACTIVE_STATUSES: TaskStatus[] = [...ACTIVE];
export const TERMINAL_STATUSES: TaskStatus[] = [...TERMINAL];
/** task.status (CHECK task_status_check). */
export const TASK_STATUSES: readonly TaskStatus[] = [...ACTIVE, ...TERMINAL];
/** task.deliveryMode (CHECK task_deliveryMode_check). */
export const DELIVERY_MODES = ["none", "at", "by"] as const;
export type DeliveryMode = (typeof DELIVERY_MODES)[number];
/** task.deliveryOutcome, written once; null until then (CHECK task_deliveryOutcome_check). `late` is a notice outcome only. */
export const DELIVERY_OUTCOMES = ["on_time", "early", "missed"] as const;

/** The one test for "this task is over"; SQL uses `TERMINAL_SQL` (lib/tasks/sql.ts) built from the same list. */
export function isTerminalStatus(status: string): status is TerminalStatus {
  return (TERMINAL_STATUSES as string[]).includes(status);
}

export const PUBLIC_ERROR_CHARS = 500;

/**
 * The only shape of a task that leaves the server (API, feed, tools). A
 * whitelist: remote handles, driver data, leases, tokens and fingerprints are
 * never copied here.
 */
export interface PublicTask {
  id: string;
  conversationId: string;
  title: string;
  driver: string;
  status: TaskStatus;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  completedAt: string | null;
  progress: { text: string; at: string } | null;
  /** Steps done of steps planned, as the driver last reported them (`at`: when); null when the driver does not say. */
  steps: { done: number; total: number; at: string } | null;
  delivery: {
    mode: DeliveryMode;
    dueAt: string | null;
    reportIfUnfinished: boolean;
    outcome: string | null;
    /** False: the task stops at dueAt (status deadline_exceeded). True: it may run on within `budget`. */
    allowOvertime: boolean;
    /** Past a missed dueAt the research stops once any is spent (tokens: input + output); null = no limit. */
    budget: { maxModelRequests?: number; maxWallSeconds?: number; maxTokens?: number } | null;
  };
  /** What the task has used so far; wall time is completedAt (or now) − startedAt. */
  spent: {
    modelRequests: number;
    /** Tokens the provider reported for every request of the task (0 where it reports none). */
    inputTokens: number;
    outputTokens: number;
    /** Estimated from the operator's price table (HERALD_MODEL_PRICES), USD; null = no price known. */
    costUsd: number | null;
    /** Web searches made and pages read by native research (HERALD_RESEARCH_MAX_SEARCHES / _MAX_SOURCES); 0 for other drivers. */
    searches: number;
    pagesRead: number;
  };
  /**
   * Native research that read no page says why, so the sheet can say the report
   * was written without sources: web search turned off, unavailable, or it found
   * nothing readable. Null while pages were read or before any section searched.
   */
  sourcesNote: "search_off" | "search_unavailable" | "none_found" | null;
  /** Set while a step waits for a failing model provider (rate limit, outage); `since` is when the wait began. */
  waitingForProvider: { since: string } | null;
  /**
   * Remote tasks only (null for native research): the remote's own limit on
   * its run (MCP: the ttl the server granted; agents: what the operator
   * configured as the remote's run timeout) and how often Herald polls it now.
   * Shown beside the deadline (delivery.dueAt), which is Herald's promise to the user.
   */
  remote: { runTimeoutSeconds: number | null; pollIntervalSeconds: number | null } | null;
  cancelRequested: boolean;
  cancel: { attempts: number; lastError: string | null };
  notification: { status: string; attempts: number; error: string | null };
  error: string | null;
  /** The failure's category (lib/errors/public.ts), for wording it in the reader's language. */
  errorCode: ErrorCategory | null;
  inputRequest: unknown;
  latestPublicationId: string | null;
}

const bound = (s: string | null, n = PUBLIC_ERROR_CHARS) =>
  s === null ? null : s.length > n ? `${s.slice(0, n - 1)}…` : s;

/** A stored failure as clients may see it: the sentence (bounded) and its category. */
export function publicFailure(error: string | null): { error: string | null; errorCode: ErrorCategory | null } {
  return { error: bound(error), errorCode: errorCodeOf(error) };
}

/** Two numbers from the driver's bookkeeping, whatever else driverData holds (remote ids, sessions). */
function remoteTimingOf(t: Task): PublicTask["remote"] {
  if (t.driver === "research" || !t.driver.includes(":")) return null;
  const d = (t.driverData && typeof t.driverData === "object" ? t.driverData : {}) as Record<string, unknown>;
  const seconds = (v: unknown) =>
    typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.round(v / 100) / 10 : null;
  return { runTimeoutSeconds: seconds(d.remoteTtlMs), pollIntervalSeconds: seconds(d.pollMs) };
}

/** Native research's counts from its bookkeeping (driverData, written with each step's commit). */
function researchOf(t: Task): { searches: number; pagesRead: number; sourcesNote: PublicTask["sourcesNote"] } {
  if (t.driver !== "research") return { searches: 0, pagesRead: 0, sourcesNote: null };
  const d = (t.driverData && typeof t.driverData === "object" ? t.driverData : {}) as Record<string, unknown>;
  const count = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : 0);
  const pagesRead = count(d.sources);
  const note = {
    off: "search_off",
    unavailable: "search_unavailable",
    ok: "none_found",
    budget: "none_found",
  } as const;
  const sourcesNote =
    pagesRead === 0 && typeof d.search === "string" && Object.hasOwn(note, d.search)
      ? note[d.search as keyof typeof note]
      : null;
  return { searches: count(d.searches), pagesRead, sourcesNote };
}

/** Only the known budget fields, whatever the JSON column holds. */
function budgetOf(raw: unknown): PublicTask["delivery"]["budget"] {
  if (!raw || typeof raw !== "object") return null;
  const b = raw as Record<string, unknown>;
  const out: NonNullable<PublicTask["delivery"]["budget"]> = {};
  if (typeof b.maxModelRequests === "number") out.maxModelRequests = b.maxModelRequests;
  if (typeof b.maxWallSeconds === "number") out.maxWallSeconds = b.maxWallSeconds;
  if (typeof b.maxTokens === "number") out.maxTokens = b.maxTokens;
  return Object.keys(out).length > 0 ? out : null;
}

/** A page a research task read, as clients see it (GET /api/tasks/:id → task.sources): no excerpt, hash or owner. */
export interface PublicTaskSource {
  n: number;
  url: string;
  title: string;
  site: string;
  fetchedAt: string;
}

export function toPublicSource(s: {
  n: number;
  url: string;
  title: string;
  site: string;
  fetchedAt: Date;
}): PublicTaskSource {
  return { n: s.n, url: s.url, title: s.title, site: s.site, fetchedAt: s.fetchedAt.toISOString() };
}

export function toPublicTask(t: Task): PublicTask {
  const research = researchOf(t);
  return {
    id: t.id,
    conversationId: t.conversationId,
    title: t.title,
    // The kind only ("research", "mcp"): server names stay on the server (docs/api.md#shapes).
    driver: t.driver.split(":")[0],
    status: t.status as TaskStatus,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
    startedAt: t.startedAt?.toISOString() ?? null,
    completedAt: t.completedAt?.toISOString() ?? null,
    progress: t.progressText && t.progressAt ? { text: t.progressText, at: t.progressAt.toISOString() } : null,
    steps:
      t.stepsTotal !== null && t.stepsAt
        ? { done: t.stepsDone, total: t.stepsTotal, at: t.stepsAt.toISOString() }
        : null,
    delivery: {
      mode: t.deliveryMode as PublicTask["delivery"]["mode"],
      dueAt: t.dueAt?.toISOString() ?? null,
      reportIfUnfinished: t.reportIfUnfinished,
      outcome: t.deliveryOutcome,
      allowOvertime: t.allowOvertime,
      budget: budgetOf(t.budget),
    },
    spent: {
      modelRequests: t.modelRequests,
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
      costUsd: t.costUsd,
      searches: research.searches,
      pagesRead: research.pagesRead,
    },
    sourcesNote: research.sourcesNote,
    waitingForProvider:
      t.providerWaitSince && !isTerminalStatus(t.status) ? { since: t.providerWaitSince.toISOString() } : null,
    remote: remoteTimingOf(t),
    cancelRequested: t.cancelRequestedAt !== null,
    cancel: { attempts: t.cancelAttempts, lastError: bound(t.lastCancelError) },
    notification: { status: t.notificationStatus, attempts: t.notificationAttempts, error: bound(t.notificationError) },
    ...publicFailure(t.error),
    inputRequest: t.inputRequest ?? null,
    latestPublicationId: t.latestPublicationId,
  };
}
