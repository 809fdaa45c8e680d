import type { Lang } from "@/lib/i18n/dictionaries";
import { joinSentences, offlineText } from "@/lib/i18n/offline";
import { parseEventSnapshot, type EventSnapshot } from "@/lib/notify/state";
import { readFrames } from "@/lib/text/frame";
import { isTerminal, quote, short, statusText } from "./format";

/**
 * The event inside a notification prompt (lib/notify/deliver.ts `narrationPrompt`):
 * the body of its first frame, read through the event's schema. Only an end
 * marker with the frame's nonce closes the frame, so a forged marker inside the
 * payload (neutralised or not, with a guessed nonce or none) cannot truncate it.
 */
export function parseNotificationEvent(text: string): EventSnapshot | null {
  const frame = readFrames(text)[0];
  if (!frame) return null;
  try {
    return parseEventSnapshot(JSON.parse(frame.body.trim()));
  } catch {
    return null;
  }
}

/** The question of an input request: remotes send a string or an object naming it under one of these keys. */
function questionOf(req: EventSnapshot["inputRequest"]): string {
  if (typeof req === "string") return req;
  if (req && typeof req === "object" && !Array.isArray(req)) {
    for (const k of ["question", "message", "prompt", "text", "title", "description"]) {
      const v = req[k];
      if (typeof v === "string" && v) return v;
    }
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
  const title = quote(lang, ev.title || offlineText(lang, "narrationUntitled"));
  const { status, deliveryOutcome: outcome, latestPublicationPartial: partial } = ev;
  const hasBody = ev.latestPublicationId !== null;
  const terminal = isTerminal(status);
  // The due moment was evaluated while the task is still at work.
  const isDue = !terminal && status !== "input_required" && (outcome === "missed" || outcome === "on_time");

  if (status === "input_required") {
    const question = short(questionOf(ev.inputRequest), 300);
    return question
      ? offlineText(lang, "narrationInputQuestion", { title, question })
      : offlineText(lang, "narrationInput", { title });
  }
  if (isDue && !terminal) {
    if (hasBody && partial === false) return offlineText(lang, "narrationDueFinal", { title });
    const soFar = offlineText(lang, hasBody ? "narrationSoFarPartial" : "narrationSoFarNothing");
    return offlineText(lang, "narrationDueUnfinished", { title, soFar });
  }
  if (status === "succeeded") {
    const late = outcome === "missed";
    const id = late
      ? hasBody
        ? "narrationFinishedLateReport"
        : "narrationFinishedLate"
      : hasBody
        ? "narrationFinishedReport"
        : "narrationFinished";
    return offlineText(lang, id, { title });
  }
  if (status === "failed") {
    // The reason is the task's own text: end it as a sentence unless it already ends like one.
    const reason = short(ev.error ?? "", 300).replace(
      /([^.!?。！？…])$/,
      (_, last: string) => last + offlineText(lang, "fullStop"),
    );
    const failed = reason
      ? offlineText(lang, "narrationFailedReason", { title, reason })
      : offlineText(lang, "narrationFailed", { title });
    return joinSentences(lang, hasBody ? [failed, offlineText(lang, "narrationFailedKept")] : [failed]);
  }
  if (status === "cancelled") return offlineText(lang, "narrationCancelled", { title });
  return offlineText(lang, "narrationStatus", { title, status: statusText(lang, status) ?? short(status, 40) });
}
