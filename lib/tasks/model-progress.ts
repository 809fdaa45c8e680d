import { neutralizeUntrusted } from "@/lib/text/frame";

/**
 * Admission of progress lines a model proposes during a research step
 * (`send_research_update`). The host decides what is shown: a line is one
 * short sentence, a step gets at most a few, never two in quick succession and
 * never the same one twice. An admitted line is a `progress` message and
 * nothing more: it is no publication and no evidence that anything finished.
 */
export const MODEL_PROGRESS_MAX_CHARS = 120;
export const MODEL_PROGRESS_PER_STEP = 3;
export const MODEL_PROGRESS_MIN_GAP_MS = 1500;

export interface ProgressWindow {
  /** Lines admitted in this step so far. */
  admitted: string[];
  /** When the last line was admitted (ms), or null. */
  lastAt: number | null;
}

export type Admission =
  { ok: true; text: string } | { ok: false; reason: "empty" | "too_many" | "too_soon" | "repeat" };

export function admitModelProgress(raw: unknown, window: ProgressWindow, now: number): Admission {
  const text = tidy(typeof raw === "string" ? raw : "");
  if (!text) return { ok: false, reason: "empty" };
  if (window.admitted.length >= MODEL_PROGRESS_PER_STEP) return { ok: false, reason: "too_many" };
  if (window.admitted.includes(text)) return { ok: false, reason: "repeat" };
  if (window.lastAt !== null && now - window.lastAt < MODEL_PROGRESS_MIN_GAP_MS)
    return { ok: false, reason: "too_soon" };
  return { ok: true, text };
}

/** One line, no control characters, no forged prompt markers, cut by code points. */
function tidy(raw: string): string {
  const one = neutralizeUntrusted(raw.slice(0, 4 * MODEL_PROGRESS_MAX_CHARS))
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  const points = [...one];
  return points.length > MODEL_PROGRESS_MAX_CHARS
    ? `${points
        .slice(0, MODEL_PROGRESS_MAX_CHARS - 1)
        .join("")
        .trimEnd()}…`
    : one;
}
