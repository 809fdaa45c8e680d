import type { Tx } from "@/lib/db/kysely";
import { stripDeliveryPhrases } from "@/lib/text/delivery-phrases";
import { emitEvent } from "@/lib/events/emit";
import { toPublicConversation } from "@/lib/contract/message";
import {
  firstTaskTitleOfRun,
  firstUserText,
  lockRetitlable,
  renameConversation,
  triggerText,
  type ConversationRow,
} from "./sql";

export const DEFAULT_TITLE = "New chat";
const MAX_CHARS = 60;

// Requests open with words that say nothing about the topic. Anchored, no nested
// quantifiers: every pattern here runs in time linear in the text.
const EN_LEAD =
  /^(?:(?:hi|hello|hey)[,!.]?\s+)?(?:(?:please|pls|kindly)\s+)?(?:(?:can|could|would|will)\s+you\s+)?(?:(?:please|pls)\s+)?(?:(?:do\s+)?(?:some\s+)?(?:research|look\s+into|looking\s+into|find\s+out|investigate|analy[sz]e|summari[sz]e|explain|tell\s+me|write\s+(?:me\s+)?a\s+report|give\s+me\s+a\s+report|help\s+me\s+(?:with|understand))\s+)?(?:(?:about|on|into|regarding)\s+)?(?:(?:the|a|an|my|our)\s+)?/i;
const ZH_LEAD =
  /^(?:你好[，,！!]?)?(?:请|麻烦)?(?:你)?(?:帮我|帮忙|给我)?(?:研究|调研|调查|查一下|查查|了解|分析|总结|介绍|写)?(?:一下|一份)?(?:关于)?/;
const CLAUSE_END = /[.!?;。！？；\n]/;
// The lookbehind lets the run start only at its first character: without it the engine
// retries the run from each of its characters when something follows it ("---…-x").
const TRAILING_PUNCT = /(?<![\s,.:;!?，。：；！？…-])[\s,.:;!?，。：；！？…-]+$/;

function cut(text: string): string {
  const chars = Array.from(text);
  if (chars.length <= MAX_CHARS) return text;
  // By code points (an emoji is never split), and at a word boundary when there is one near the end.
  const head = chars.slice(0, MAX_CHARS - 1).join("");
  const space = head.lastIndexOf(" ");
  return `${space > MAX_CHARS / 2 ? head.slice(0, space) : head}…`;
}

/**
 * A provisional title from the first message: its topic, not the raw text —
 * delivery phrases ("tell me in 10 minutes"), greetings and request verbs are
 * dropped, only the first clause stays, and the first letter is capitalised.
 */
export function titleFromMessage(content: string): string {
  let t = stripDeliveryPhrases(content).replace(/\s+/g, " ").trim();
  const end = t.search(CLAUSE_END);
  if (end > 0) t = t.slice(0, end);
  t = t.replace(EN_LEAD, "").replace(ZH_LEAD, "").trim();
  t = t.replace(TRAILING_PUNCT, "");
  if (!t) {
    const raw = content.replace(/\s+/g, " ").trim();
    return raw ? cut(raw) : DEFAULT_TITLE;
  }
  return cut(t.charAt(0).toUpperCase() + t.slice(1));
}

// Openers that name no topic: a greeting, thanks, or a question about Herald itself.
// Compared whole, after lower-casing and dropping punctuation and spaces: a Set lookup, linear in the text.
const SMALL_TALK = new Set([
  "hi",
  "hello",
  "hey",
  "yo",
  "hiya",
  "hithere",
  "hellothere",
  "goodmorning",
  "goodafternoon",
  "goodevening",
  "thanks",
  "thankyou",
  "thx",
  "ok",
  "okay",
  "test",
  "testing",
  "help",
  "whatcanyoudo",
  "whatdoyoudo",
  "whoareyou",
  "whatareyou",
  "howdoesthiswork",
  "howareyou",
  "你好",
  "您好",
  "嗨",
  "哈喽",
  "在吗",
  "在么",
  "谢谢",
  "好的",
  "测试",
  "帮助",
  "能做什么",
  "你能做什么",
  "你可以做什么",
  "可以做什么",
  "你会什么",
  "你会做什么",
  "你是谁",
  "你好你能做什么",
]);
const NOT_WORD = /[\s\p{P}\p{S}]+/gu;

/** A message that says nothing about what the chat is for ("Hi", "能做什么"): its title is only provisional. */
export function isSmallTalk(content: string): boolean {
  if (content.length > 80) return false;
  const key = content.toLowerCase().replace(NOT_WORD, "");
  return key === "" || SMALL_TALK.has(key);
}

type TitleRow = Pick<ConversationRow, "id" | "title" | "titleSource">;

/**
 * After each chat reply, in its transaction: the title follows the chat's topic
 * until it has one for good.
 * - the turn started a background task: the task's title (the model's short
 *   name for the research topic) becomes the chat's, for good (`task`);
 * - otherwise, while the title is the first message's (`none`/`message`): the
 *   exchange settles it (`exchange`), unless the first message named no topic
 *   ("Hi"): then this turn's message names the chat if it does name one, and the
 *   title stays provisional otherwise;
 * - a title the user gave (`user`) or a research topic (`task`) is never replaced.
 */
export async function titleAfterExchange(
  tx: Tx,
  ownerId: string,
  conversationId: string,
  runId: string,
): Promise<void> {
  const c = await lockRetitlable(tx, ownerId, conversationId);
  if (!c) return;
  const taskTitle = await firstTaskTitleOfRun(tx, ownerId, conversationId, runId);
  const next = taskTitle?.trim()
    ? { title: cut(taskTitle.replace(/\s+/g, " ").trim()), source: "task" }
    : c.titleSource === "exchange"
      ? null
      : await titleFromTurn(tx, ownerId, c, runId);
  if (!next) return;
  const updated = await renameConversation(tx, c.id, next.title, next.source);
  if (next.title !== c.title) {
    await emitEvent(
      tx,
      ownerId,
      { type: "conversation.updated", data: { conversation: toPublicConversation(updated) } },
      { conversationId },
    );
  }
}

/** An exchange without a task: the title it settles on, or a better provisional one after small talk. */
async function titleFromTurn(
  tx: Tx,
  ownerId: string,
  c: TitleRow,
  runId: string,
): Promise<{ title: string; source: string } | null> {
  const first = await firstUserText(tx, ownerId, c.id);
  if (first !== undefined && !isSmallTalk(first)) return { title: c.title, source: "exchange" };
  const trigger = await triggerText(tx, ownerId, runId);
  if (trigger === undefined || isSmallTalk(trigger)) return null;
  return { title: titleFromMessage(trigger), source: "exchange" };
}
