import { ApiError } from "@/lib/errors/api-error";
import { limits } from "./config";
import type { MessageAdmission, TaskAdmission } from "./sql";

// The refusals that read the admission statements' rows (./sql.ts).

/** Seconds until a rolling-minute window frees a unit: the oldest entry's 60th second. */
function windowRetry(oldestAgeSeconds: number): number {
  return Math.max(1, Math.ceil(60 - oldestAgeSeconds));
}

/** The 429 a refused TaskAdmission answers with. */
export function taskRefusal(a: TaskAdmission): ApiError {
  const l = limits();
  if (a.active >= l.activeTasks) {
    return new ApiError(
      "quota_exceeded",
      `You already have ${l.activeTasks} background tasks running. Wait for one to finish or cancel one, then try again.`,
      undefined,
      30,
    );
  }
  const retry = windowRetry(a.oldest_age ?? 0);
  return new ApiError(
    "rate_limited",
    `Too many tasks started in the last minute. Try again in ${retry} s.`,
    undefined,
    retry,
  );
}

/** Throws the 429 a refused MessageAdmission calls for. */
export function assertMessageAdmitted(a: MessageAdmission): void {
  if (a.admitted) return;
  const l = limits();
  if (a.recent > l.messagesPerMinute) {
    const retry = windowRetry(a.oldest_age ?? 0);
    throw new ApiError(
      "rate_limited",
      `Too many messages in the last minute. Try again in ${retry} s.`,
      undefined,
      retry,
    );
  }
  throw new ApiError(
    "quota_exceeded",
    `${l.queuedTurns} of your messages are still waiting for an answer. Wait for them, then try again.`,
    undefined,
    10,
  );
}
