// One way to write a moment for a person, shared by the server (agent replies,
// notes, emails) and the browser (chips, the sheet): the same due time must read
// the same in a chip and in Herald's reply. Browser-safe, no imports.

export type ClockLang = "en" | "zh";

export const DEFAULT_TIME_ZONE = "UTC";
export const MAX_TIME_ZONE_CHARS = 64;

/** The canonical IANA name of `zone`, or null when Intl does not know it. */
export function canonicalTimeZone(zone: unknown): string | null {
  if (typeof zone !== "string" || zone.length === 0 || zone.length > MAX_TIME_ZONE_CHARS) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** A zone to format with: `zone` when Intl knows it, else UTC (a stored value is never trusted to be valid). */
export function usableTimeZone(zone: string | null | undefined): string {
  return canonicalTimeZone(zone) ?? DEFAULT_TIME_ZONE;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(lang: ClockLang, timeZone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${lang}|${timeZone}|${JSON.stringify(options)}`;
  let f = formatters.get(key);
  if (!f) {
    // English as most people read a clock ("9:54 PM"), Chinese on 24 hours ("21:54").
    f = new Intl.DateTimeFormat(lang === "zh" ? "zh-CN" : "en-US", {
      timeZone,
      ...(lang === "zh" ? { hourCycle: "h23" as const } : { hour12: true }),
      ...options,
    });
    if (formatters.size > 200) formatters.clear();
    formatters.set(key, f);
  }
  return f;
}

function dayKey(d: Date, timeZone: string): string {
  return formatter("en", timeZone, { year: "numeric", month: "2-digit", day: "2-digit" }).format(d);
}

export interface MomentOptions {
  lang: ClockLang;
  /** The reader's (the account's) IANA zone; an unknown one reads as UTC. */
  timeZone: string | null | undefined;
  /** What "today" and "in 2 min" are counted from. */
  now?: Date;
  /**
   * Seconds on the clock: "near" (the default) only when the moment is under an
   * hour from `now`, where a few seconds matter; true always; false never.
   */
  seconds?: boolean | "near";
  /** "date": always with the day (emails, titles); "auto": the day only when it is not today in the zone. */
  date?: "auto" | "date";
  /** Append how far it is from `now` ("9:54 PM, in 2 min"); "future" only while it is ahead. */
  relative?: boolean | "future";
}

const HOUR_MS = 3_600_000;

/**
 * A moment as a person reads it, in their zone: "9:54 PM" today, "Wed, Dec 2,
 * 9:54 PM" on another day ("21:54", "12月2日周三 21:54" in Chinese), optionally
 * with the distance from now ("9:54 PM, in 2 min", "21:54（2 分钟后）"). Empty for
 * an invalid input.
 */
export function formatMoment(at: Date | string | null | undefined, options: MomentOptions): string {
  if (at === null || at === undefined) return "";
  const d = typeof at === "string" ? new Date(at) : at;
  if (Number.isNaN(d.getTime())) return "";
  const { lang } = options;
  const zone = usableTimeZone(options.timeZone);
  const now = options.now ?? new Date();
  const distance = d.getTime() - now.getTime();
  const seconds =
    options.seconds === undefined || options.seconds === "near" ? Math.abs(distance) < HOUR_MS : options.seconds;
  const withDate = options.date === "date" || dayKey(d, zone) !== dayKey(now, zone);
  const text = formatter(lang, zone, {
    ...(withDate ? { weekday: "short", month: "short", day: "numeric" } : {}),
    hour: lang === "zh" ? "2-digit" : "numeric",
    minute: "2-digit",
    ...(seconds ? { second: "2-digit" } : {}),
  })
    .format(d)
    // Intl's narrow no-break spaces ("9:54 PM") make text that tests and copy-paste cannot match.
    .replace(/[\u202f\u00a0]/g, " ");
  const relative = options.relative === true || (options.relative === "future" && distance > 0);
  if (!relative) return text;
  const rel = relativeTime(distance, lang);
  return lang === "zh" ? `${text}（${rel}）` : `${text}, ${rel}`;
}

/**
 * How far a moment is, coarse enough to stay true while read: "in 45 s",
 * "in 2 min", "in 1 h 5 min", "in 3 days", "2 min ago" ("45 秒后", "2 分钟前" …).
 */
export function relativeTime(distanceMs: number, lang: ClockLang): string {
  const future = distanceMs >= 0;
  const total = Math.round(Math.abs(distanceMs) / 1000);
  let amount: string;
  if (total < 60) amount = lang === "zh" ? `${total} 秒` : `${total} s`;
  else if (total < 3600) {
    const m = Math.round(total / 60);
    amount = m === 60 ? (lang === "zh" ? "1 小时" : "1 h") : lang === "zh" ? `${m} 分钟` : `${m} min`;
  } else if (total < 86_400) {
    const h = Math.floor(total / 3600);
    const m = Math.round((total % 3600) / 60);
    const hm = m === 60 ? [h + 1, 0] : [h, m];
    amount =
      lang === "zh" ? `${hm[0]} 小时${hm[1] ? ` ${hm[1]} 分钟` : ""}` : `${hm[0]} h${hm[1] ? ` ${hm[1]} min` : ""}`;
  } else {
    const days = Math.round(total / 86_400);
    amount = lang === "zh" ? `${days} 天` : `${days} day${days === 1 ? "" : "s"}`;
  }
  if (lang === "zh") return `${amount}${future ? "后" : "前"}`;
  return future ? `in ${amount}` : `${amount} ago`;
}

/** A full date and time with the zone's name, for a tooltip: "Tuesday, December 1, 2026 at 9:54:25 PM GMT+8". */
export function formatMomentFull(at: Date | string, lang: ClockLang, timeZone: string | null | undefined): string {
  const d = typeof at === "string" ? new Date(at) : at;
  if (Number.isNaN(d.getTime())) return "";
  const zone = usableTimeZone(timeZone);
  return formatter(lang, zone, {
    weekday: "long",
    year: "numeric",
    month: "long",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    second: "2-digit",
    timeZoneName: "short",
  })
    .format(d)
    .replace(/[\u202f\u00a0]/g, " ");
}
