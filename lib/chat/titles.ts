import type { SqlTx } from "@/lib/db/client";
import { stripDeliveryPhrases } from "@/lib/text/delivery-phrases";
import { emitEvent } from "@/lib/events/emit";
import { toPublicConversation } from "@/lib/contract/message";
import type { Conversation } from "@/lib/db/generated/client.ts";

export const DEFAULT_TITLE = "New chat";
const MAX_CHARS = 60;

// Requests open with words that say nothing about the topic. Anchored, no nested
// quantifiers: every pattern here runs in time linear in the text.
const EN_LEAD =
  /^(?:(?:hi|hello|hey)[,!.]?\s+)?(?:(?:please|pls|kindly)\s+)?(?:(?:can|could|would|will)\s+you\s+)?(?:(?:please|pls)\s+)?(?:(?:do\s+)?(?:some\s+)?(?:research|look\s+into|looking\s+into|find\s+out|investigate|analy[sz]e|summari[sz]e|explain|tell\s+me|write\s+(?:me\s+)?a\s+report|give\s+me\s+a\s+report|help\s+me\s+(?:with|understand))\s+)?(?:(?:about|on|into|regarding)\s+)?(?:(?:the|a|an|my|our)\s+)?/i;
const ZH_LEAD = /^(?:你好[，,！!]?)?(?:请|麻烦)?(?:你)?(?:帮我|帮忙|给我)?(?:研究|调研|调查|查一下|查查|了解|分析|总结|介绍|写)?(?:一下|一份)?(?:关于)?/;
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

/**
 * After the first reply of a conversation: when that turn started a background
 * task, the task's title (the model's short name for the topic) becomes the
 * conversation's. Runs in the reply's transaction; a title the user gave, or
 * one already settled by an earlier exchange, is left alone.
 */
export async function titleAfterExchange(tx: SqlTx, ownerId: string, conversationId: string, runId: string): Promise<void> {
  const [c] = await tx.$queryRaw<Conversation[]>`
    SELECT * FROM "conversation" WHERE id = ${conversationId} AND "ownerId" = ${ownerId} AND "deletedAt" IS NULL
      AND "titleSource" IN ('none', 'message') FOR UPDATE`;
  if (!c) return;
  const [task] = await tx.$queryRaw<{ title: string }[]>`
    SELECT title FROM "task" WHERE "ownerId" = ${ownerId} AND "conversationId" = ${conversationId} AND "originRunId" = ${runId}
    ORDER BY "createdAt" LIMIT 1`;
  const title = task?.title.trim() ? cut(task.title.replace(/\s+/g, " ").trim()) : c.title;
  const [updated] = await tx.$queryRaw<Conversation[]>`
    UPDATE "conversation" SET title = ${title}, "titleSource" = 'exchange' WHERE id = ${c.id} RETURNING *`;
  if (title !== c.title) {
    await emitEvent(tx, ownerId, { type: "conversation.updated", data: { conversation: toPublicConversation(updated) } }, { conversationId });
  }
}
