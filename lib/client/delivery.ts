// The composer's delivery picker (docs/state-machines.md#delivery-contracts), DOM-free so it can be unit-tested.

export type DeliveryMode = "none" | "at" | "by";

/** The server accepts at most 7 days (lib/contract/schemas.ts). */
export const MAX_DUE_MINUTES = 7 * 24 * 60;

/**
 * Minutes as typed (decimals allowed, "," or ".") → seconds, or null when it
 * isn't a positive duration the server would accept.
 */
export function parseDueMinutes(text: string): number | null {
  const trimmed = text.trim().replace(",", ".");
  if (!/^(\d+\.?\d*|\.\d+)$/.test(trimmed)) return null;
  const minutes = Number(trimmed);
  if (!Number.isFinite(minutes) || minutes <= 0 || minutes > MAX_DUE_MINUTES) return null;
  // Whole milliseconds: 0.1 min is 6 s, not 6.000000000000001.
  return Math.round(minutes * 60_000) / 1000;
}

/** Below this a research task rarely finishes: the picker explains instead of keeping quiet. */
export const SHORT_DUE_SECONDS = 60;

/**
 * "HH:MM" or "HH:MM:SS" (an <input type="time">) → seconds from `now` to the
 * next time the clock shows it: today if still ahead, else tomorrow. The clock
 * is `timeZone`'s (the account's, which every time on the page is read in), or
 * this device's without one. Null when it is not a time of day.
 */
export function secondsUntilTimeOfDay(text: string, now: Date, timeZone?: string): number | null {
  const m = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/.exec(text.trim());
  if (!m) return null;
  const [h, min, s] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
  if (h > 23 || min > 59 || s > 59) return null;
  if (timeZone) {
    const wall = wallClockSeconds(now, timeZone);
    if (wall !== null) {
      // Counted on the zone's wall clock: a DST change before the time shifts it by that hour, as any clock would.
      let diff = h * 3600 + min * 60 + s - wall;
      if (diff <= 0) diff += 86_400;
      return diff;
    }
  }
  const target = new Date(now);
  target.setHours(h, min, s, 0);
  if (target.getTime() <= now.getTime()) target.setDate(target.getDate() + 1);
  return (target.getTime() - now.getTime()) / 1000;
}

/** Seconds since midnight on `timeZone`'s clock at `now` (milliseconds included), or null for an unknown zone. */
function wallClockSeconds(now: Date, timeZone: string): number | null {
  try {
    const parts = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    }).formatToParts(now);
    const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? NaN);
    const total = (get("hour") % 24) * 3600 + get("minute") * 60 + get("second") + now.getMilliseconds() / 1000;
    return Number.isFinite(total) ? total : null;
  } catch {
    return null;
  }
}

/** "HH:MM" on `timeZone`'s clock `seconds` from `now` (what the "At time" field starts at). */
export function timeOfDayIn(seconds: number, now: Date, timeZone: string): string {
  const at = new Date(now.getTime() + seconds * 1000);
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    hour: "2-digit",
    minute: "2-digit",
  }).formatToParts(at);
  const get = (type: string) => (parts.find((p) => p.type === type)?.value ?? "00").padStart(2, "0");
  return `${get("hour") === "24" ? "00" : get("hour")}:${get("minute")}`;
}

/** Minutes for the "Due in (minutes)" field that match a number of seconds (two decimals at most). */
export function minutesText(seconds: number): string {
  return String(Math.round((seconds / 60) * 100) / 100);
}

/** A duration in whole parts for a sentence: under a minute in seconds, under an hour in minutes and seconds. */
export function durationParts(seconds: number): { unit: "s" | "ms" | "hm"; h: number; m: number; s: number } {
  const total = Math.max(0, Math.round(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return { unit: total < 60 ? "s" : total < 3600 ? "ms" : "hm", h, m, s };
}
