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

const TOPIC_RE = /<<<BEGIN UNTRUSTED DATA>>>[^\n]*\n([\s\S]*?)\n<<<END UNTRUSTED DATA>>>/;

/** Research plans and sections: deterministic prose derived from the topic. */
export function researchText(text: string): string | null {
  const plan = /^\[herald:research-plan\] sections=(\d+)/.exec(text);
  const topic = (TOPIC_RE.exec(text)?.[1] ?? "the topic").trim().slice(0, 80);
  if (plan) {
    const n = Number(plan[1]);
    const base = ["Background and scope", "Key facts and figures", "Risks and open questions", "Trends", "Options", "Recommendations"];
    return Array.from({ length: n }, (_, i) => `${i + 1}. ${base[i % base.length]}${i >= base.length ? ` (${Math.floor(i / base.length) + 1})` : ""}`).join("\n");
  }
  const step = /^\[herald:research-step\] section=(\d+)\/(\d+)/.exec(text);
  if (step) {
    const section = /Write the section "([^"]*)"/.exec(text)?.[1] ?? `Section ${step[1]}`;
    const extra = /Additional instructions from the user:\n<<<BEGIN UNTRUSTED DATA>>>[^\n]*\n([\s\S]*?)\n<<<END/.exec(text)?.[1];
    return [
      `${section} for "${topic}": this section summarises what is known, what is uncertain, and what it means for the question asked.`,
      `Finding ${step[1]} of ${step[2]} is stated with its source class and confidence so a reader can weigh it.`,
      extra ? `As requested, it also covers: ${extra.trim().slice(0, 200)}.` : "",
    ]
      .filter(Boolean)
      .join(" ");
  }
  return null;
}

export function planOfflineTurn(prompt: LanguageModelV3Prompt, _toolNames: string[]): OfflineTurn {
  const text = lastUserText(prompt);
  return { type: "text", text: researchText(text) ?? chatReply(text) };
}
