import type { LanguageModelV3Message, LanguageModelV3Prompt } from "@ai-sdk/provider";

type Message = LanguageModelV3Message;
type AssistantPart = Extract<Message, { role: "assistant" }>["content"][number];
type UserPart = Extract<Message, { role: "user" }>["content"][number];
type ToolPart = Extract<Message, { role: "tool" }>["content"][number];

/** Between merged texts: two turns glued into one must still read as two paragraphs. */
const JOIN = "\n\n";

/**
 * The prompt as strict chat templates accept it (Mistral, Gemma and others on
 * vLLM or llama.cpp raise "roles must alternate" otherwise, and every later
 * turn of the conversation would fail the same way): one system message first;
 * then user and assistant alternating, starting with user; tool results only
 * right after the assistant message whose calls they answer, and every call
 * answered. Stored history breaks this naturally — a failed or queued turn
 * leaves two user messages in a row, an acknowledgement followed by a
 * narration two assistant messages — so neighbours of one role are merged
 * (texts joined by a blank line), orphaned results and unanswered calls are
 * dropped, and leading assistant turns (a history window cut mid-exchange)
 * are dropped.
 */
export function alternateRoles(prompt: LanguageModelV3Prompt): LanguageModelV3Prompt {
  const systems = prompt
    .filter((m) => m.role === "system")
    .map((m) => m.content.trim())
    .filter(Boolean);
  const rest = pairToolResults(prompt.filter((m) => m.role !== "system"));
  const out: Message[] = [];
  for (const m of rest) {
    const last = out.at(-1);
    if (!last && m.role !== "user") continue;
    if (last && last.role === m.role) out[out.length - 1] = merge(last, m);
    else out.push(m);
  }
  return [...(systems.length ? [{ role: "system" as const, content: systems.join(JOIN) }] : []), ...out];
}

/** Keeps a tool result only right after the assistant message holding its call, and a call only when answered. */
function pairToolResults(messages: Message[]): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === "tool") continue;
    if (m.role !== "assistant") {
      if (nonEmpty(m)) out.push(m);
      continue;
    }
    const results: ToolPart[] = [];
    for (let j = i + 1; j < messages.length && messages[j].role === "tool"; j++)
      results.push(...(messages[j].content as ToolPart[]));
    const calls = new Set(m.content.flatMap((p) => (p.type === "tool-call" ? [p.toolCallId] : [])));
    const answered = new Set(
      results.flatMap((p) => (p.type === "tool-result" && calls.has(p.toolCallId) ? [p.toolCallId] : [])),
    );
    const content = m.content.filter((p) => p.type !== "tool-call" || answered.has(p.toolCallId));
    const assistant: Message = { ...m, content };
    if (nonEmpty(assistant)) out.push(assistant);
    const kept = results.filter((p) => p.type === "tool-result" && answered.has(p.toolCallId));
    if (kept.length && nonEmpty(assistant)) out.push({ role: "tool", content: kept });
  }
  return out;
}

function nonEmpty(m: Message): boolean {
  if (m.role === "system") return m.content.trim().length > 0;
  return m.content.some((p) => (p.type === "text" || p.type === "reasoning" ? p.text.trim().length > 0 : true));
}

function merge(a: Message, b: Message): Message {
  if (a.role === "user" && b.role === "user")
    return { ...a, content: joinTexts<UserPart>([...a.content, ...b.content]) };
  if (a.role === "assistant" && b.role === "assistant")
    return { ...a, content: joinTexts<AssistantPart>([...a.content, ...b.content]) };
  if (a.role === "tool" && b.role === "tool") return { ...a, content: [...a.content, ...b.content] };
  return b;
}

/**
 * One text part for all the texts, placed where the first one was: providers
 * concatenate text parts without a separator, and some servers take only a
 * string as a message's content.
 */
function joinTexts<P extends { type: string }>(parts: P[]): P[] {
  const texts = parts.filter((p): p is P & { type: "text"; text: string } => p.type === "text" && "text" in p);
  if (texts.length < 2) return parts;
  const joined = {
    ...texts[0],
    text: texts
      .map((t) => t.text.trim())
      .filter(Boolean)
      .join(JOIN),
  };
  const out: P[] = [];
  let placed = false;
  for (const p of parts) {
    if (p.type !== "text") out.push(p);
    else if (!placed) {
      out.push(joined);
      placed = true;
    }
  }
  return out;
}
