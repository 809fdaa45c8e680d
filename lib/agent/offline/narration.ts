import type { Lang } from "@/lib/i18n/dictionaries";
import { joinSentences, offlineText } from "@/lib/i18n/offline";
import { readFrames } from "../frame";
import { isTerminal, quote, short, statusText, type Json } from "./format";

/**
 * The event inside a notification prompt: the body of its first frame. Only an
 * end marker with the frame's nonce closes it, so a forged marker inside the
 * payload (neutralised or not, with a guessed nonce or none) cannot truncate it.
 */
export function parseNotificationEvent(text: string): Json | null {
  const frame = readFrames(text)[0];
  if (!frame) return null;
  const body = frame.body.trim();
  try {
    const parsed = JSON.parse(body) as Json;
    if (!parsed || typeof parsed !== "object") return null;
    const inner = (parsed.event && typeof parsed.event === "object" ? parsed.event : parsed) as Json;
    if (!inner.title && parsed.task && typeof parsed.task === "object") return { ...parsed.task, ...inner };
    return inner;
  } catch {
    return null;
  }
}

function questionOf(req: unknown): string {
  if (typeof req === "string") return req;
  if (req && typeof req === "object") {
    const r = req as Json;
    for (const k of ["question", "message", "prompt", "text", "title", "description"]) if (typeof r[k] === "string" && r[k]) return r[k];
  }
  return "";
}

/**
 * What the assistant says when a task needs attention. Facts only from the
 * event; no ids (Herald's or remote), since the user acts through the UI.
 */
export function notificationNarration(text: string, lang: Lang): string {
  const ev = parseNotificationEvent(text);
  if (!ev) return offlineText(lang, "narrationUnreadable");
  const title = quote(lang, ev.title ?? ev.taskTitle ?? offlineText(lang, "narrationUntitled"));
  const status = String(ev.status ?? "");
  const kind = String(ev.kind ?? ev.type ?? ev.event ?? ev.reason ?? ev.noticeKey ?? ev.key ?? "").toLowerCase();
  const outcome = ev.deliveryOutcome ?? ev.outcome ?? ev.delivery?.outcome ?? null;
  const hasBody = ev.latestPublicationId !== null && ev.latestPublicationId !== undefined;
  const partial = ev.latestPublicationPartial ?? ev.partial ?? null;
  const terminal = isTerminal(status);
  const isDue = kind.includes("due") || (!terminal && status !== "input_required" && (outcome === "missed" || outcome === "on_time"));

  if (status === "input_required" || kind.includes("input")) {
    const question = short(questionOf(ev.inputRequest), 300);
    return question ? offlineText(lang, "narrationInputQuestion", { title, question }) : offlineText(lang, "narrationInput", { title });
  }
  if (isDue && !terminal) {
    if (hasBody && partial === false) return offlineText(lang, "narrationDueFinal", { title });
    const soFar = offlineText(lang, hasBody ? "narrationSoFarPartial" : "narrationSoFarNothing");
    return offlineText(lang, "narrationDueUnfinished", { title, soFar });
  }
  if (status === "succeeded") {
    const late = outcome === "missed" || kind.includes("late");
    const id = late ? (hasBody ? "narrationFinishedLateReport" : "narrationFinishedLate") : hasBody ? "narrationFinishedReport" : "narrationFinished";
    return offlineText(lang, id, { title });
  }
  if (status === "failed") {
    // The reason is the task's own text: end it as a sentence unless it already ends like one.
    const reason = short(ev.error ?? "", 300).replace(/([^.!?。！？…])$/, (_, last: string) => last + offlineText(lang, "fullStop"));
    const failed = reason ? offlineText(lang, "narrationFailedReason", { title, reason }) : offlineText(lang, "narrationFailed", { title });
    return joinSentences(lang, hasBody ? [failed, offlineText(lang, "narrationFailedKept")] : [failed]);
  }
  if (status === "cancelled") return offlineText(lang, "narrationCancelled", { title });
  return offlineText(lang, "narrationStatus", { title, status: statusText(lang, status) ?? short(status, 40) });
}
