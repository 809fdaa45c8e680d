import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { createHash } from "node:crypto";

/**
 * The offline model's "thinking": pure functions from prompt to the next turn.
 * Kept apart from the provider plumbing so the intent rules are unit-testable.
 */
export type OfflineTurn =
  | { type: "text"; text: string }
  | { type: "tool-call"; toolCallId: string; toolName: string; input: Record<string, unknown> };

type Message = LanguageModelV3Prompt[number];

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

function isChinese(text: string): boolean {
  return /[\u4e00-\u9fff]/.test(text);
}

function pick<T>(seed: string, options: T[]): T {
  const n = createHash("sha256").update(seed).digest().readUInt32BE(0);
  return options[n % options.length];
}

export function chatReply(userText: string): string {
  const quoted = userText.length > 120 ? `${userText.slice(0, 117)}…` : userText;
  if (isChinese(userText)) {
    return [
      `你说：「${quoted}」。`,
      "我是 Herald 的内置离线模型，不联网，所以回答是确定性的。",
      "需要长时间的工作时，请让我“研究……”，我会在后台继续，完成后在这里告诉你。",
    ].join("");
  }
  const opener = pick(userText, ["Got it.", "Understood.", "Thanks for the message."]);
  return [
    `${opener} You said: "${quoted}".`,
    "I am Herald's built-in offline model, so I answer deterministically and without the network.",
    'For long work, ask me to "research …" and I will keep going in the background and tell you here when it is done.',
  ].join(" ");
}

export function planOfflineTurn(prompt: LanguageModelV3Prompt, _toolNames: string[]): OfflineTurn {
  return { type: "text", text: chatReply(lastUserText(prompt)) };
}
