import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { createHash } from "node:crypto";
import { detectIntent } from "./intent";
import { notificationNarration } from "./narration";
import { lastUserText, readerLang } from "./prompt-text";
import { RESEARCH_UPDATE_TOOL } from "@/lib/drivers/research";
import { chatReply, researchText, researchUpdate, toolResultReply } from "./replies";
import { routeAgent, type RouteOption } from "./route-agent";
import { TOOLS } from "../tool-names";

/**
 * The offline model's "thinking": a pure function from prompt to the next
 * turn, composed from the intent rules, the replies and the narration. Kept
 * apart from the provider plumbing (../offline-model.ts) so it is unit-testable.
 */
export type OfflineTurn =
  /** `alsoCall`: a tool call sent in the same response (a research step's progress line). */
  | { type: "text"; text: string; alsoCall?: { toolCallId: string; toolName: string; input: Record<string, unknown> } }
  | { type: "tool-call"; toolCallId: string; toolName: string; input: Record<string, unknown> };

const NOTIFICATION_MARK = "[herald:task-notification]";

export function toolCallIdFor(prompt: LanguageModelV3Prompt, text: string): string {
  return `call-${createHash("sha256").update(`${prompt.length}:${text}`).digest("hex").slice(0, 16)}`;
}

/** `routes`: the start tool's `agent` options, when it offers a choice of worker. */
export function planOfflineTurn(
  prompt: LanguageModelV3Prompt,
  toolNames: string[],
  routes: readonly RouteOption[] = [],
): OfflineTurn {
  const last = prompt[prompt.length - 1];
  // After a tool ran, always answer in words: another call here would loop.
  if (last?.role === "tool") return { type: "text", text: toolResultReply(prompt) };
  const text = lastUserText(prompt);
  const research = researchText(text);
  if (research !== null) {
    const update = toolNames.includes(RESEARCH_UPDATE_TOOL) ? researchUpdate(text) : null;
    if (!update) return { type: "text", text: research };
    return {
      type: "text",
      text: research,
      alsoCall: { toolCallId: toolCallIdFor(prompt, text), toolName: RESEARCH_UPDATE_TOOL, input: { text: update } },
    };
  }
  if (text.startsWith(NOTIFICATION_MARK))
    return { type: "text", text: notificationNarration(text, readerLang(prompt)) };
  if (last?.role === "user" && toolNames.length > 0) {
    const intent = detectIntent(text);
    if (intent && toolNames.includes(intent.toolName)) {
      const agent = intent.toolName === TOOLS.start ? routeAgent(text, routes) : null;
      const input = agent ? { ...intent.input, agent } : intent.input;
      return { type: "tool-call", toolCallId: toolCallIdFor(prompt, text), toolName: intent.toolName, input };
    }
  }
  return { type: "text", text: chatReply(text) };
}
