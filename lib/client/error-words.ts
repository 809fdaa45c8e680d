// Failures in the reader's language. The server's sentences are English; where
// a status or a category says what happened, the dictionary words it instead.

import type { ErrorCategory } from "@/lib/errors/categories";
import type { MessageKey } from "@/lib/i18n/dictionaries";
import { ResponseError } from "./api";

type Translate = (key: MessageKey, vars?: Record<string, string | number>) => string;

/** A failed request: offline, limits and outages in our words, else the server's. */
export function errorWords(t: Translate, error: unknown): string {
  if (!(error instanceof ResponseError)) return error instanceof Error ? error.message : String(error);
  if (error.status === 0) return t("errNetwork");
  if (error.status === 429) return t("errRateLimited", { seconds: error.retryAfter ?? 60 });
  if (error.status === 503) return t("errUnavailable");
  return error.message;
}

const CATEGORY_KEYS: Record<ErrorCategory, MessageKey> = {
  model_unavailable: "errCatModelUnavailable",
  model_rate_limited: "errCatModelRateLimited",
  model_refused: "errCatModelRefused",
  unreachable: "errCatUnreachable",
  remote_failed: "errCatRemoteFailed",
  protocol: "errCatProtocol",
  timeout: "errCatTimeout",
  internal: "errCatInternal",
};

/** A task's stored failure: its category's words, or Herald's own sentence as stored. */
export function failureWords(
  t: Translate,
  task: { error: string | null; errorCode: ErrorCategory | null },
): string | null {
  return task.errorCode ? t(CATEGORY_KEYS[task.errorCode]) : task.error;
}
