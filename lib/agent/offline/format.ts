import type { Lang } from "@/lib/i18n/dictionaries";
import { offlineText, type OfflineMessageId } from "@/lib/i18n/offline";
import { neutralizeUntrusted } from "@/lib/text/frame";
import type { ToolTaskRecord } from "../tool-results";
import { isTerminalStatus } from "@/lib/contract/task";
import { formatMoment } from "@/lib/contract/clock";

/** Untrusted text made safe and short enough to quote in a reply. */
export const short = (s: unknown, n = 200): string => {
  const text = neutralizeUntrusted(String(s ?? ""))
    .replace(/\s+/g, " ")
    .trim();
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
};

export const quote = (lang: Lang, s: unknown): string => offlineText(lang, "quote", { text: short(s, 120) });

const STATUS: Record<string, OfflineMessageId> = {
  submitted: "statusSubmitted",
  queued: "statusQueued",
  running: "statusRunning",
  updating: "statusUpdating",
  input_required: "statusInputRequired",
  succeeded: "statusSucceeded",
  failed: "statusFailed",
  cancelled: "statusCancelled",
  deadline_exceeded: "statusDeadlineExceeded",
};

/** Words for a task status; undefined for one this table doesn't know. */
export function statusText(lang: Lang, status: string): string | undefined {
  return Object.hasOwn(STATUS, status) ? offlineText(lang, STATUS[status]) : undefined;
}

export const isTerminal = isTerminalStatus;

/** How a task record's state reads to the user: a cancel that has not landed yet is "stopping". */
export function statusWords(t: Pick<ToolTaskRecord, "status" | "cancelRequested">, lang: Lang): string {
  if (t.cancelRequested && !isTerminal(t.status)) return offlineText(lang, "statusStopping");
  const s = String(t.status ?? "");
  return statusText(lang, s) ?? s;
}

/**
 * A due time as a person reads it, in the account's zone and the one format
 * the chips use (lib/contract/clock.ts): "9:54:25 PM, in 2 min", "Thu, Dec 3,
 * 9:00 AM, in 1 day"; "21:54:25（2 分钟后）" in Chinese. Never an ISO stamp.
 */
export function formatDue(
  iso: string | null | undefined,
  lang: Lang = "en",
  timeZone = "UTC",
  now = new Date(),
): string {
  return formatMoment(iso, { lang, timeZone, now, relative: true });
}
