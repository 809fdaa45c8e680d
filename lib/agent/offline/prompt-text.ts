import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import type { Lang } from "@/lib/i18n/dictionaries";
import { isChinese } from "@/lib/i18n/detect";

type Message = LanguageModelV3Prompt[number];

/** Host prompts (research steps, notifications) start with this; users' messages never count as theirs. */
export const HOST_MARK = "[herald:";

export function textOf(m: Message): string {
  if (m.role === "system") return m.content;
  return m.content
    .map((p) => (p.type === "text" ? p.text : ""))
    .join("")
    .trim();
}

export function lastUserText(prompt: LanguageModelV3Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) if (prompt[i].role === "user") return textOf(prompt[i]);
  return "";
}

/** The latest user turn the user actually typed (notification prompts are the host's). */
export function latestRealUserText(prompt: LanguageModelV3Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    if (prompt[i].role !== "user") continue;
    const text = textOf(prompt[i]);
    if (!text.startsWith(HOST_MARK)) return text;
  }
  return "";
}

/** The reader's language: the one they last wrote in. */
export function readerLang(prompt: LanguageModelV3Prompt): Lang {
  return isChinese(latestRealUserText(prompt)) ? "zh" : "en";
}
