import type { Lang } from "@/lib/i18n/dictionaries";
import { offlineText, type OfflineMessageId } from "@/lib/i18n/offline";
import { neutralizeUntrusted } from "@/lib/text/frame";
import type { ToolTaskRecord } from "../tool-results";
import { isTerminalStatus } from "@/lib/contract/task";

/** Untrusted text made safe and short enough to quote in a reply. */
export const short = (s: unknown, n = 200): string => {
  const text = neutralizeUntrusted(String(s ?? "")).replace(/\s+/g, " ").trim();
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
 * A due time as a person reads it: weekday, day, month and clock time in the
 * reader's time zone and language, with the zone's short name ("Mon 30 Nov,
 * 11:33 GMT+1", "11月30日周一 11:33 UTC"), never an ISO stamp. Seconds only when
 * the time is under an hour away from `now`, where they matter.
 */
export function formatDue(iso: string | null | undefined, lang: Lang = "en", timeZone = "UTC", now = new Date()): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const zone = validZone(timeZone);
  const near = Math.abs(d.getTime() - now.getTime()) < 3_600_000;
  const locale = lang === "zh" ? "zh-CN" : "en-GB";
  const when = new Intl.DateTimeFormat(locale, {
    timeZone: zone,
    weekday: "short",
    day: "numeric",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
    ...(near ? { second: "2-digit" as const } : {}),
    hourCycle: "h23",
  }).format(d);
  const name = new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: "short" }).formatToParts(d).find((p) => p.type === "timeZoneName")?.value ?? zone;
  return lang === "zh" ? `${when}（${name}）` : `${when} ${name}`;
}

function validZone(timeZone: string): string {
  try {
    new Intl.DateTimeFormat("en", { timeZone });
    return timeZone;
  } catch {
    return "UTC";
  }
}
