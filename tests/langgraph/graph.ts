import { END, MessagesAnnotation, START, StateGraph, interrupt } from "@langchain/langgraph";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";

/**
 * A deterministic remote agent for Herald's agent-protocol driver tests (no
 * model): the last user message decides what it does. Markers:
 * `[fail]` throws, `[slow:<ms>]` works that long in small slices (so a cancel
 * or an interrupting run stops it), `[ask]` interrupts with a question and
 * answers with what it was given, `[empty]` replies with empty text,
 * `[parts]` replies with content parts (text and an image), `[progress]`
 * reports "Step i of n" on the custom stream every 250 ms of slow work (what
 * Herald relays), otherwise it replies `Report: <the request>` after a short pause.
 */
const lastText = (messages: BaseMessage[]): string => {
  const m = messages[messages.length - 1];
  return typeof m?.content === "string" ? m.content : JSON.stringify(m?.content ?? "");
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function work(
  state: typeof MessagesAnnotation.State,
  config: { signal?: AbortSignal; writer?: (chunk: unknown) => void },
) {
  const text = lastText(state.messages);
  if (text.includes("[fail]")) throw new Error("the deterministic graph was told to fail");
  const slow = /\[slow:(\d+)\]/.exec(text);
  const total = slow ? Number(slow[1]) : 150;
  const steps = Math.max(1, Math.floor(total / 250));
  for (let waited = 0; waited < total; waited += 50) {
    if (config.signal?.aborted) throw new Error("aborted");
    if (text.includes("[progress]") && waited % 250 === 0)
      config.writer?.({ progress: `Step ${waited / 250 + 1} of ${steps}` });
    await sleep(50);
  }
  if (text.includes("[ask]")) {
    const answer = interrupt({ question: "Which region should the report cover?" });
    return { messages: [new AIMessage(`Report for ${String(answer)}: ${text}`)] };
  }
  if (text.includes("[empty]")) return { messages: [new AIMessage("")] };
  if (text.includes("[parts]")) {
    return { messages: [new AIMessage({ content: [{ type: "image_url", image_url: "data:image/png;base64,AA==" }] })] };
  }
  return { messages: [new AIMessage(`Report: ${text}`)] };
}

export const graph = new StateGraph(MessagesAnnotation)
  .addNode("work", work)
  .addEdge(START, "work")
  .addEdge("work", END)
  .compile();
