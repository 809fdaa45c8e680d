import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { TOOLS } from "./tool-names";
import { createHash } from "node:crypto";
import { stripDeliveryPhrases } from "@/lib/delivery/parse";
import { neutralizeUntrusted, readFrames } from "./frame";

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

export function isChinese(text: string): boolean {
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

/** Research plans and sections: deterministic prose derived from the topic. */
export function researchText(text: string): string | null {
  const plan = /^\[herald:research-plan\] sections=(\d+)/.exec(text);
  if (!plan && !/^\[herald:research-step\]/.test(text)) return null;
  const frames = readFrames(text);
  const topic = (frames.find((f) => f.label === "research request") ?? frames[0])?.body.trim().slice(0, 80) || "the topic";
  if (plan) {
    const n = Number(plan[1]);
    const base = ["Background and scope", "Key facts and figures", "Risks and open questions", "Trends", "Options", "Recommendations"];
    return Array.from({ length: n }, (_, i) => `${i + 1}. ${base[i % base.length]}${i >= base.length ? ` (${Math.floor(i / base.length) + 1})` : ""}`).join("\n");
  }
  const step = /^\[herald:research-step\] section=(\d+)\/(\d+)/.exec(text);
  if (step) {
    const section = /Write the section "([^"]*)"/.exec(text)?.[1] ?? `Section ${step[1]}`;
    const extra = frames.find((f) => f.label === "user update")?.body;
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

// ------------------------------------------------------------------ intents ---


export interface Intent {
  toolName: (typeof TOOLS)[keyof typeof TOOLS];
  input: Record<string, unknown>;
}

const NOTIFICATION_MARK = "[herald:task-notification]";

// Politeness and fillers before the verb: "ok, could you please research …".
const EN_LEAD =
  /^(?:(?:please|pls|hey|hi|hello|ok(?:ay)?|so|now|right|herald|alright|can\s+you|could\s+you|would\s+you|will\s+you|would\s+you\s+mind|i\s+(?:want|need)\s+you\s+to|i'?d\s+like\s+you\s+to|i\s+would\s+like\s+you\s+to|go\s+ahead\s+and|help\s+me|let'?s)\b[\s,:]*)*/i;
const ZH_LEAD = /^(?:请你?|麻烦你?|帮我|帮忙|能不能|能否|可以|你|给我|我想让你|我要你|我想|我要|我需要|现在)*/;

function lead(text: string): string {
  return text.replace(EN_LEAD, "").replace(ZH_LEAD, "").trim();
}

// Intent rules run on whole messages (up to 16,000 characters) in the worker,
// so each stays linear whatever the text (same rules as lib/delivery/parse.ts):
// a pattern that could start at every character of a run (spaces, stops,
// particles) may start only where the run starts, `\s*` never sits next to a
// lazy group that can take the same spaces, and a `\s+` before `(.+)$` takes
// its whole run. None of this changes what matches, except that a verb and its
// keyword with only spaces between ("how is   going", "add   to the research")
// no longer read as a request about a task named " ". tests/adversarial-text.ts
// holds the inputs that took seconds to minutes before.
const TRAILING_PUNCT = /(?<![\s.,;:!?。，；：！？~…])[\s.,;:!?。，；：！？~…]+$/;

const EN_SMALL = new Set(["a", "an", "and", "as", "at", "but", "by", "for", "in", "of", "on", "or", "the", "to", "vs", "via", "with", "from", "into"]);

function titleCase(s: string): string {
  let first = true;
  return s.replace(/[A-Za-z][\w'’-]*/g, (w) => {
    const isFirst = first;
    first = false;
    if (/[A-Z]/.test(w)) return w; // EU, iPhone, McKinsey: the user's casing wins.
    if (!isFirst && EN_SMALL.has(w)) return w;
    return w[0].toUpperCase() + w.slice(1);
  });
}

/**
 * A short task title from a research topic: delivery phrases and fillers
 * removed, first clause only, leading "the/my" dropped, Title Case for English.
 */
export function taskTitleFrom(topic: string): string {
  let t = stripDeliveryPhrases(topic).trim();
  // First clause: the rest is instructions, which stay in the prompt.
  t = t.split(/(?:[.!?;](?:\s|$)|[。！？；\n]|，|,\s+(?=(?:and|then|please|tell|let|focus|focusing|include|including|especially|particularly|specifically|make|so|but|with|also|i\s+need|i\s+want)\b))/i, 1)[0] ?? t;
  for (let i = 0; i < 4; i++) {
    t = t
      .replace(/^(?:the|my|our|a|an|some|about|on|into|regarding|me|for\s+me|a\s+bit\s+(?:on|about))\s+/i, "")
      .replace(/^(?:一下|下|一份|有关|关于|我的|我们的|这个|那个)/, "")
      .replace(/(?<!\s)\s+(?:for\s+me|please|in\s+detail|thoroughly|now|for\s+now|asap)$/i, "")
      .replace(/(?:吧|呢|啊|的报告|的研究|的情况)$/, "")
      .replace(TRAILING_PUNCT, "")
      .trim();
  }
  if (!t) return isChinese(topic) ? "研究任务" : "Research";
  if (isChinese(t)) return t.length > 40 ? `${t.slice(0, 39)}…` : t;
  if (t.length > 80) t = `${t.slice(0, 80).replace(/\s+\S*$/, "")}…`;
  return titleCase(t);
}

const GENERIC_TARGET = /^(?:it|that|this|them|those|these|everything|all|all\s+of\s+them|the\s+lot|one|the\s+one|whatever|anything)$/i;

/** Which task the user named, without articles, verbs or generic nouns; "" when they named none. */
export function cleanTarget(raw: string): string {
  let t = raw.trim();
  for (let i = 0; i < 4; i++) {
    t = t
      .replace(TRAILING_PUNCT, "")
      .replace(/^what(?:'s|’s|\s+is|\s+about)\s+/i, "")
      .replace(/^(?:researching|investigating|analy[sz]ing|working\s+on|looking\s+into|on|about|with|for|of)\s+/i, "")
      .replace(/^(?:the|my|our|that|this|your|those|these|current|running|background|all(?:\s+my)?)\s+/i, "")
      .replace(/(?<!\s)\s+(?:please|now|right\s+now|for\s+now|already|yet|then|thanks?)$/i, "")
      .replace(/(?<!\s)\s*\b(?:research|report|task|job|analysis|investigation|study|work|background\s+task|one|thing|project)s?$/i, "")
      .replace(/^(?:那个|这个|我的|关于|一下|掉|把|正在|在)+/, "")
      .replace(/(?<!的|吧|了|呢|吗|啊|掉|一下)(?:的|吧|了|呢|吗|啊|掉|一下)+$/, "")
      .replace(/(?:的)?(?:研究|调研|调查|分析|任务|报告|工作)$/, "")
      .replace(/^(?:研究|调研|调查|分析)(?=.)/, "")
      .trim();
  }
  return GENERIC_TARGET.test(t) ? "" : t;
}

const withTask = (target: string): Record<string, unknown> => (target ? { task: target } : {});

function detectCancel(text: string): Intent | null {
  const t = lead(text);
  // Not "never mind" or "forget it": they end chat topics far more often than tasks.
  const en = /^(?:stop|cancel|abort|kill|halt|terminate|call\s+off|scrap|ditch)\b\s*(.*)$/is.exec(t);
  if (en) return { toolName: TOOLS.cancel, input: withTask(cleanTarget(en[1])) };
  const zhVerbFirst = /^(?:停止|取消|停掉|终止|中止|停下|别再(?:研究|调研|查|做)?|不要再(?:研究|调研|查|做)?|停)(?:一下)?(.*)$/s.exec(t);
  if (zhVerbFirst) return { toolName: TOOLS.cancel, input: withTask(cleanTarget(zhVerbFirst[1])) };
  const zhBa = /^把(.+?)(?:停掉|停止|取消|停了|停下来|终止|中止)/s.exec(t);
  if (zhBa) return { toolName: TOOLS.cancel, input: withTask(cleanTarget(zhBa[1])) };
  const zhNoNeed = /^(.*?)(?:不用|不要|不必|别)(?:再)?(?:做|研究|调研|查|继续)了/s.exec(t);
  if (zhNoNeed) return { toolName: TOOLS.cancel, input: withTask(cleanTarget(zhNoNeed[1])) };
  return null;
}

/** `/列出.*任务/`, without retrying from every 列出 to the end of its line. */
function listsTasksOnOneLine(text: string): boolean {
  return text.split(/[\n\r\u2028\u2029]/).some((line) => {
    const i = line.indexOf("列出");
    return i >= 0 && line.indexOf("任务", i + 2) >= 0;
  });
}

function detectList(text: string): Intent | null {
  const t = text.toLowerCase();
  const en = [
    /\bwhat(?:'s|’s| is| are)\s+(?:currently\s+|still\s+|now\s+)?(?:running|in\s+progress|active|pending|going\s+on)\b/,
    /\bwhat\s+are\s+you\s+(?:currently\s+|still\s+)?(?:working\s+on|doing|running)\b/,
    /\b(?:list|show|display|see)\s+(?:me\s+)?(?:all\s+)?(?:of\s+)?(?:my\s+|the\s+|our\s+)?(?:active\s+|running\s+|current\s+|background\s+|open\s+)*(?:tasks|jobs)\b/,
    /\bbackground\s+(?:tasks|jobs)\b/,
    /\bany\s+(?:\w+\s+)?(?:tasks|jobs)\b/,
    /\b(?:what|which)\s+(?:\w+\s+)?(?:tasks|jobs)\b/,
    /\b(?:status\s+of|how\s+are)\s+(?:all\s+)?(?:my|the|our)\s+tasks\b/,
    /\b(?:is\s+)?anything\s+(?:still\s+)?running\b/,
    /^(?:my\s+)?tasks\??$/,
  ];
  const zh = /哪些任务|什么任务|在跑什么|跑着什么|正在运行|任务列表|后台任务|有没有任务|在做什么|在忙什么|进行中的任务|所有任务|任务都/;
  if (!en.some((re) => re.test(t)) && !zh.test(text) && !listsTasksOnOneLine(text)) return null;
  const activeOnly = /\b(?:running|active|in\s+progress|pending|working\s+on|going\s+on|current|open)\b/.test(t) || /在跑|正在|进行中|运行|在做|在忙/.test(text);
  return { toolName: TOOLS.list, input: activeOnly ? { activeOnly: true } : {} };
}

function detectCheck(text: string): Intent | null {
  const t = lead(text).replace(TRAILING_PUNCT, "");
  const en: RegExp[] = [
    /^(?:is|are|has|have)\s+(?!\s)(.*?)(?:(?<!\s)\s+)?\b(?:done|ready|finished|complete|completed|over|there\s+yet|back|through)\b/i,
    /^(?:did|does|has)\s+(?!\s)(.*?)(?:(?<!\s)\s+)?\b(?:finish|finished|complete|completed|end|succeed|fail|failed)\b/i,
    /^(?:what(?:'s|’s|\s+is)\s+)?(?:the\s+)?(?:status|progress|state)\s+(?:of|on|for|with)\s+(?!\s)(.+)$/i,
    /^how(?:'s|’s|\s+is|\s+are)\s+(?!\s)(.+?)(?<!\s)\s+(?:going|doing|coming\s+along|progressing|looking|getting\s+on)\b/i,
    /^how\s+far\s+(?:along\s+)?is\s+(?!\s)(.+)$/i,
    /^(?:any\s+)?(?:news|progress|updates?)\s+(?:on|about|for|from|with)\s+(?!\s)(.+)$/i,
    /^check\s+(?!\s)(?:on\s+(?!\s)|up\s+on\s+(?!\s))?(?:the\s+(?:status|progress)\s+of\s+(?!\s))?(.+)$/i,
    /^(?:where\s+are\s+we|where\s+is\s+it)\s+(?:on|with)\s+(?!\s)(.+)$/i,
    /^(.+?)(?<!\s)\s+(?:status|progress)$/i,
  ];
  if (/^what(?:'s|’s|\s+is)\s+(?:the\s+)?(?:status|progress)$/i.test(t)) return { toolName: TOOLS.check, input: {} };
  for (const re of en) {
    const m = re.exec(t);
    // "are you ready?" asks about the assistant, not a task.
    if (m && !/^(?:you|we|i|he|she|they|u)$/i.test((m[1] ?? "").trim())) {
      return { toolName: TOOLS.check, input: withTask(cleanTarget(m[1] ?? "")) };
    }
  }
  const zhLook = /^(?:查看|看看|查一下|看一下|检查|查询)(?:一下)?(.*?)(?:的)?(?:进度|状态|进展|情况)/s.exec(t);
  if (zhLook) return { toolName: TOOLS.check, input: withTask(cleanTarget(zhLook[1])) };
  const zh =
    /^(.*?)(?:完成了吗|完成了没有?|完成没有?|做完了吗|做完了没有?|做完没有?|好了吗|好了没有?|结束了吗|怎么样了|进展如何|进展怎么样|进展怎样|进度如何|进度怎么样|进度怎样|到哪了|到哪一步了|进度|进展|的状态|状态如何|状态怎么样|有结果了吗|有结果吗|出来了吗)[？?。!！]*$/s.exec(
      t,
    );
  if (zh) return { toolName: TOOLS.check, input: withTask(cleanTarget(zh[1])) };
  return null;
}

const ADD_HEAD = /^(?:please\s+)?(?:also\s+)?(?:add|include)\s+/i;
const ADD_TO = /\s+(?:to|in|into)\s+/iy;
const ADD_ARTICLE = /(?:the|my|that|this|our)\s+/iy;
const TASK_NOUN = /\b(?:research|report|task|analysis|study|investigation)\b/gi;
const LINE_BREAK = /[\n\r\u2028\u2029]/g;
const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);

/** Index of the first element of the ascending `xs` that is ≥ `x` (xs.length when none). */
function firstAtOrAfter(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * "add cobalt prices to the battery research" → what to add and which task:
 * what `^(?:please\s+)?(?:also\s+)?(?:add|include)\s+(.+?)\s+(?:to|in|into)\s+
 * (?:the\s+|my\s+|that\s+|this\s+|our\s+)?(.*?)\s*\b(?:research|report|task|
 * analysis|study|investigation)\b` (flag i) finds. As a pattern it searched the
 * rest of the line again after every "to"/"in" (quadratic); here each candidate
 * split is checked against indexes of the task nouns and line breaks.
 */
function addToTask(t: string): { message: string; target: string } | null {
  const head = ADD_HEAD.exec(t);
  if (!head) return null;
  const nouns: number[] = [];
  /** Where the spaces before each noun start: the task name ends there. */
  const nameEnds: number[] = [];
  for (const m of t.matchAll(TASK_NOUN)) {
    let j = m.index!;
    while (j > 0 && isSpace(t[j - 1])) j--;
    nouns.push(m.index!);
    nameEnds.push(j);
  }
  if (nouns.length === 0) return null;
  const breaks = Array.from(t.matchAll(LINE_BREAK), (m) => m.index!);
  const lineEnd = (i: number) => breaks[firstAtOrAfter(breaks, i)] ?? t.length;
  // The name runs from q to the next noun (less the spaces before it), on one line.
  const nameEnd = (q: number) => {
    const k = firstAtOrAfter(nouns, q);
    if (k === nouns.length) return -1;
    const end = Math.max(q, nameEnds[k]);
    return end <= lineEnd(q) ? end : -1;
  };
  const from = head[0].length;
  // What to add is one line, and ends where a run of spaces before "to"/"in"/"into" starts.
  for (let e = from + 1, last = Math.min(lineEnd(from), t.length - 1); e <= last; e++) {
    if (!isSpace(t[e]) || isSpace(t[e - 1])) continue;
    ADD_TO.lastIndex = e;
    if (!ADD_TO.test(t)) continue;
    const bare = ADD_TO.lastIndex;
    ADD_ARTICLE.lastIndex = bare;
    for (const q of ADD_ARTICLE.test(t) ? [ADD_ARTICLE.lastIndex, bare] : [bare]) {
      const end = nameEnd(q);
      if (end >= 0) return { message: t.slice(from, e), target: t.slice(q, end) };
    }
  }
  return null;
}

function detectUpdate(text: string): Intent | null {
  const t = lead(text).replace(TRAILING_PUNCT, "");
  const addTo = addToTask(t);
  if (addTo) return { toolName: TOOLS.update, input: { ...withTask(cleanTarget(addTo.target)), message: addTo.message.trim() } };
  const also = /^(?:please\s+)?(?:and\s+)?also\s+(?:please\s+)?(cover|include|add|consider|mention|address|look\s+(?:at|into)|research|analy[sz]e|investigate|compare|check|explore|focus\s+on)\s+(?!\s)(.+)$/i.exec(t);
  if (also) {
    const objectOnly = /^(?:cover|include|add|consider|mention|address|look)/i.test(also[1]);
    return { toolName: TOOLS.update, input: { message: objectOnly ? also[2].trim() : `${also[1]} ${also[2]}`.trim() } };
  }
  // "don't forget" then two spaces, as `forget\s+(?:…\s+)?\s+` always asked, without splitting a run of them every way.
  const plain = /^(?:include|cover|make\s+sure\s+(?:to|you)\s+(?:cover|include|mention|look\s+at)|don'?t\s+forget(?:\s+(?:to\s+(?:cover|include|mention)|about))?\s|tell\s+the\s+(?:research|task)\s+to)\s+(?!\s)(.+)$/i.exec(t);
  if (plain) return { toolName: TOOLS.update, input: { message: plain[1].trim() } };
  const zh = /^(?:另外|此外|还有|补充(?:一下|一点)?|也要|还要|再加上|加上|顺便|也请|请也)\s*[，,：:]?\s*(.+)$/s.exec(t);
  if (zh) {
    const message = zh[1].replace(/^(?:也|还|请|要|再|把)+/, "").trim() || zh[1].trim();
    return { toolName: TOOLS.update, input: { message } };
  }
  return null;
}

function detectStart(text: string): Intent | null {
  // Delivery phrases may come first ("In 10 minutes, research …"); they stay in the prompt.
  const t = lead(stripDeliveryPhrases(text).replace(/^[\s,，。.;；]+/, ""));
  const en =
    /^(?:research(?!\s+(?:shows?|suggests?|says?|indicates?|found|finds|is|was|are|were|has|have|had|papers?)\b)|investigate|look\s+into|analy[sz]e|dig\s+into|explore|write\s+(?:me\s+)?(?:up\s+)?(?:a|an)\s+(?:short\s+|brief\s+|quick\s+|detailed\s+|full\s+)?(?:report|analysis|brief(?:ing)?|summary|memo)\s+(?:on|about|of|into)|do\s+(?:some\s+|a\s+(?:bit\s+of\s+)?)?(?:research|analysis|deep\s+dive|digging)\s+(?:on|into|about|of)|(?:start|begin|run|kick\s+off)\s+(?:a\s+|some\s+)?(?:background\s+)?(?:research|investigation|analysis|study)\s+(?:on|into|about|of))\b\s*(.+)$/is.exec(
      t,
    );
  if (en && en[1].trim()) return { toolName: TOOLS.start, input: { title: taskTitleFrom(en[1]), prompt: text.trim() } };
  const zh = /^(?:研究|调研|分析|调查|深入研究|写一份(?:关于)?)(?:一下|下)?\s*(.+)$/s.exec(t);
  if (zh && zh[1].trim()) {
    const topic = zh[1].replace(/的报告$/, "");
    return { toolName: TOOLS.start, input: { title: taskTitleFrom(topic), prompt: text.trim() } };
  }
  return null;
}

/**
 * The tool a user message asks for, or null for ordinary chat. Order matters:
 * "stop the battery research" and "is the research done" both say "research"
 * but are not requests to start one.
 */
export function detectIntent(text: string): Intent | null {
  const t = text.trim();
  if (!t || t.startsWith("[herald:")) return null;
  return detectCancel(t) ?? detectList(t) ?? detectCheck(t) ?? detectUpdate(t) ?? detectStart(t);
}

// ------------------------------------------------------- replies to results ---

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const STATUS_EN: Record<string, string> = {
  submitted: "starting",
  queued: "queued",
  running: "running",
  updating: "running with your new instructions",
  input_required: "waiting for your input",
  succeeded: "finished",
  failed: "failed",
  cancelled: "cancelled",
};
const STATUS_ZH: Record<string, string> = {
  submitted: "正在启动",
  queued: "排队中",
  running: "进行中",
  updating: "正在按新要求进行",
  input_required: "等待你的输入",
  succeeded: "已完成",
  failed: "失败",
  cancelled: "已取消",
};

function statusWords(t: Json, zh: boolean): string {
  const active = !["succeeded", "failed", "cancelled"].includes(String(t.status));
  if (t.cancelRequested && active) return zh ? "正在停止" : "stopping";
  const s = String(t.status ?? "");
  return (zh ? STATUS_ZH : STATUS_EN)[s] ?? s;
}

/** A clock time for a due date; UTC so the text is the same on every machine. */
export function formatDue(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 19)} UTC`;
}

const short = (s: unknown, n = 200): string => {
  const text = neutralizeUntrusted(String(s ?? "")).replace(/\s+/g, " ").trim();
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
};

const quoteEn = (s: unknown) => `"${short(s, 120)}"`;
const quoteZh = (s: unknown) => `「${short(s, 120)}」`;

function candidatesText(cands: Json[], zh: boolean, verbEn: string, verbZh: string): string {
  const lines = cands.map((c) => `- ${zh ? quoteZh(c.title) : quoteEn(c.title)} (id ${short(c.id, 60)})`);
  return zh
    ? [`有不止一个后台任务符合，你想${verbZh}哪一个？`, ...lines].join("\n")
    : [`More than one background task matches — which one should I ${verbEn}?`, ...lines].join("\n");
}

function noMatch(input: Json, zh: boolean, activeOnly: boolean): string {
  const named = typeof input.task === "string" && input.task.trim();
  if (zh) return named ? `我没有找到与${quoteZh(input.task)}匹配的${activeOnly ? "进行中的" : ""}后台任务。` : `这个对话里没有${activeOnly ? "进行中的" : ""}后台任务。`;
  return named
    ? `I couldn't find ${activeOnly ? "an active" : "a"} background task matching ${quoteEn(input.task)}.`
    : `There is no ${activeOnly ? "active " : ""}background task in this conversation.`;
}

function replyStart(r: Json, zh: boolean): string {
  if (r.error) return zh ? `没能启动后台任务：${short(r.error)}` : `I couldn't start the background task: ${short(r.error)}`;
  const d = r.delivery as Json | undefined;
  if (zh) {
    const parts = [`我已经在后台开始研究${quoteZh(r.title)}，完成后会在这里告诉你。`];
    if (d?.dueAt) {
      parts.push(d.mode === "at" ? `约定时间：${formatDue(d.dueAt)}（at：到点告诉你）。` : `最晚：${formatDue(d.dueAt)}（by：一完成就告诉你）。`);
      if (d.reportIfUnfinished) parts.push("如果到时还没做完，我会告诉你当时已有的结果。");
    }
    return parts.join("");
  }
  const parts = [`I've started researching ${quoteEn(r.title)} in the background. I'll tell you here when it's done.`];
  if (d?.dueAt) {
    parts.push(
      d.mode === "at"
        ? `Due at ${formatDue(d.dueAt)} (at): I'll report at that time, even if it finishes earlier.`
        : `Due at ${formatDue(d.dueAt)} (by): I'll report as soon as it's done, at the latest then.`,
    );
    if (d.reportIfUnfinished) parts.push("If it isn't finished by then, I'll tell you what exists so far.");
  }
  return parts.join(" ");
}

function replyList(r: Json, input: Json, zh: boolean): string {
  if (r.error) return zh ? `没能列出后台任务：${short(r.error)}` : `I couldn't list the background tasks: ${short(r.error)}`;
  const tasks = (Array.isArray(r.tasks) ? r.tasks : []) as Json[];
  if (tasks.length === 0) {
    if (zh) return input.activeOnly ? "这个对话里现在没有正在运行的后台任务。" : "这个对话里还没有后台任务。";
    return input.activeOnly ? "Nothing is running in the background in this conversation right now." : "There are no background tasks in this conversation yet.";
  }
  // Ids only help when titles collide and the user has to pick one.
  const seen = new Map<string, number>();
  for (const t of tasks) seen.set(String(t.title).toLowerCase(), (seen.get(String(t.title).toLowerCase()) ?? 0) + 1);
  const lines = tasks.map((t) => {
    const dup = (seen.get(String(t.title).toLowerCase()) ?? 0) > 1 ? ` (id ${short(t.id, 60)})` : "";
    return `- ${zh ? quoteZh(t.title) : quoteEn(t.title)}${zh ? "：" : " — "}${statusWords(t, zh)}${dup}`;
  });
  const head = zh ? `这个对话的后台任务（${tasks.length} 个）：` : `Background tasks in this conversation (${tasks.length}):`;
  return [head, ...lines].join("\n");
}

function replyCancel(r: Json, input: Json, zh: boolean): string {
  if (r.error) return zh ? `没能停止任务：${short(r.error)}` : `I couldn't stop it: ${short(r.error)}`;
  if (Array.isArray(r.candidates) && r.candidates.length > 0) return candidatesText(r.candidates, zh, "stop", "停止");
  if (r.cancelled && r.task) {
    return zh ? `正在停止${quoteZh(r.task.title)}；已经发布的内容会保留。` : `Stopping ${quoteEn(r.task.title)}; anything already published stays available.`;
  }
  return noMatch(input, zh, true);
}

function replyCheck(r: Json, input: Json, zh: boolean): string {
  if (r.error) return zh ? `没能查询任务：${short(r.error)}` : `I couldn't check on it: ${short(r.error)}`;
  if (Array.isArray(r.candidates) && r.candidates.length > 0) return candidatesText(r.candidates, zh, "check", "查看");
  if (!r.found || !r.task) {
    const others = (Array.isArray(r.tasks) ? r.tasks : []) as Json[];
    const base = noMatch(input, zh, false);
    if (others.length === 0) return base;
    const list = others.map((t) => (zh ? quoteZh(t.title) : quoteEn(t.title))).join(zh ? "、" : ", ");
    return zh ? `${base}这里的任务有：${list}。` : `${base} Tasks here: ${list}.`;
  }
  const t = r.task as Json;
  const parts: string[] = [];
  const pub = r.latestPublication as Json | null;
  const notices = (Array.isArray(r.notices) ? r.notices : []) as Json[];
  const d = r.delivery as Json | null;
  if (zh) {
    parts.push(`${quoteZh(t.title)}：${statusWords(t, zh)}。`);
    if (t.error) parts.push(`原因：${short(t.error)}。`);
    if (r.progress?.text) parts.push(`最新进展：${short(r.progress.text)}`);
    parts.push(pub ? (pub.partial ? `已有一份阶段性报告（第 ${pub.version} 版）可以阅读。` : "最终报告已经可以阅读。") : "还没有发布任何报告。");
    if (d?.dueAt) parts.push(`约定时间（${d.mode}）：${formatDue(d.dueAt)}${d.outcome ? `，结果：${d.outcome}` : ""}。`);
    if (r.inputRequest) parts.push("它在等你回答一个问题。");
    if (notices.length) parts.push(`通知：${notices.map((n) => `${short(n.key, 40)}${n.outcome ? `（${n.outcome}）` : ""}`).join("、")}。`);
    return parts.join("");
  }
  parts.push(`${quoteEn(t.title)} is ${statusWords(t, zh)}.`);
  if (t.error) parts.push(`Reason: ${short(t.error)}.`);
  if (r.progress?.text) parts.push(`Latest progress: ${short(r.progress.text)}`);
  parts.push(pub ? (pub.partial ? `A partial report (version ${pub.version}) is available.` : "The final report is available.") : "Nothing has been published yet.");
  if (d?.dueAt) parts.push(`Due at ${formatDue(d.dueAt)} (${d.mode})${d.outcome ? `; delivery: ${d.outcome}` : ""}.`);
  if (r.inputRequest) parts.push("It is waiting for your answer to a question.");
  if (notices.length) parts.push(`Notices: ${notices.map((n) => `${short(n.key, 40)}${n.outcome ? ` (${n.outcome})` : ""}`).join(", ")}.`);
  return parts.join(" ");
}

function replyUpdate(r: Json, input: Json, zh: boolean): string {
  if (r.error) return zh ? `没能把补充要求交给任务：${short(r.error)}` : `I couldn't pass that on: ${short(r.error)}`;
  if (Array.isArray(r.candidates) && r.candidates.length > 0) return candidatesText(r.candidates, zh, "update", "补充");
  if (r.updated) {
    const what = short(r.instruction ?? input.message, 300).replace(TRAILING_PUNCT, "");
    return zh ? `好的，下一步研究会同时涵盖：${what}。` : `Noted — the next research step will also cover: ${what}.`;
  }
  return noMatch(input, zh, true);
}

function toolOutputValue(output: unknown): Json {
  const o = output as { type?: string; value?: unknown; reason?: string } | undefined;
  if (!o || typeof o !== "object") return {};
  if (o.type === "json" && o.value && typeof o.value === "object") return o.value as Json;
  if (o.type === "text" && typeof o.value === "string") {
    try {
      return JSON.parse(o.value) as Json;
    } catch {
      return { message: o.value };
    }
  }
  if (o.type === "error-text") return { error: String(o.value ?? "error") };
  if (o.type === "error-json") return { error: JSON.stringify(o.value) };
  if (o.type === "execution-denied") return { error: o.reason ?? "denied" };
  return {};
}

/** A short reply summarising the last tool result, in the user's language. */
export function toolResultReply(prompt: LanguageModelV3Prompt): string {
  const last = prompt[prompt.length - 1];
  const results = last.role === "tool" ? last.content.filter((p) => p.type === "tool-result") : [];
  const zh = isChinese(latestRealUserText(prompt));
  if (results.length === 0) return zh ? "好的。" : "Done.";
  const result = results[results.length - 1];
  let input: Json = {};
  for (const m of prompt) {
    if (m.role !== "assistant") continue;
    for (const p of m.content) if (p.type === "tool-call" && p.toolCallId === result.toolCallId) input = parseInput(p.input);
  }
  const r = toolOutputValue(result.output);
  switch (result.toolName) {
    case TOOLS.start:
      return replyStart(r, zh);
    case TOOLS.list:
      return replyList(r, input, zh);
    case TOOLS.cancel:
      return replyCancel(r, input, zh);
    case TOOLS.check:
      return replyCheck(r, input, zh);
    case TOOLS.update:
      return replyUpdate(r, input, zh);
    default:
      return r.error ? short(r.error) : zh ? "好的。" : "Done.";
  }
}

function parseInput(input: unknown): Json {
  if (typeof input === "string") {
    try {
      return JSON.parse(input) as Json;
    } catch {
      return {};
    }
  }
  return input && typeof input === "object" ? (input as Json) : {};
}

// ------------------------------------------------------------ notifications ---

/** The latest user turn the user actually typed (notification prompts are the host's). */
export function latestRealUserText(prompt: LanguageModelV3Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    if (prompt[i].role !== "user") continue;
    const text = textOf(prompt[i]);
    if (!text.startsWith("[herald:")) return text;
  }
  return "";
}

/**
 * The event inside a notification prompt: the body of its first frame. Only an
 * end marker with the frame's nonce closes it, so a forged marker inside the
 * payload (neutralised or not, with a guessed nonce or none) cannot truncate it.
 */
export function parseNotificationEvent(text: string): Json | null {
  const frame = readFrames(text)[0];
  if (!frame) return null;
  const body = frame.body.trim();
  try {
    const parsed = JSON.parse(body) as Json;
    if (!parsed || typeof parsed !== "object") return null;
    const inner = (parsed.event && typeof parsed.event === "object" ? parsed.event : parsed) as Json;
    if (!inner.title && parsed.task && typeof parsed.task === "object") return { ...parsed.task, ...inner };
    return inner;
  } catch {
    return null;
  }
}

function questionOf(req: unknown): string {
  if (typeof req === "string") return req;
  if (req && typeof req === "object") {
    const r = req as Json;
    for (const k of ["question", "message", "prompt", "text", "title", "description"]) if (typeof r[k] === "string" && r[k]) return r[k];
  }
  return "";
}

/**
 * What the assistant says when a task needs attention. Facts only from the
 * event; no ids (Herald's or remote), since the user acts through the UI.
 */
export function notificationNarration(text: string, zh: boolean): string {
  const ev = parseNotificationEvent(text);
  if (!ev) return zh ? "有一个后台任务需要你关注，详情见任务面板。" : "A background task needs your attention; see the task panel for details.";
  const title = ev.title ?? ev.taskTitle ?? (zh ? "后台任务" : "Background task");
  const T = zh ? quoteZh(title) : quoteEn(title);
  const status = String(ev.status ?? "");
  const kind = String(ev.kind ?? ev.type ?? ev.event ?? ev.reason ?? ev.noticeKey ?? ev.key ?? "").toLowerCase();
  const outcome = ev.deliveryOutcome ?? ev.outcome ?? ev.delivery?.outcome ?? null;
  const hasBody = ev.latestPublicationId !== null && ev.latestPublicationId !== undefined;
  const partial = ev.latestPublicationPartial ?? ev.partial ?? null;
  const terminal = ["succeeded", "failed", "cancelled"].includes(status);
  const isDue = kind.includes("due") || (!terminal && status !== "input_required" && (outcome === "missed" || outcome === "on_time"));

  if (status === "input_required" || kind.includes("input")) {
    const q = short(questionOf(ev.inputRequest), 300);
    if (zh) return `你的后台任务${T}需要你的输入${q ? `：「${q}」` : "。"}请在任务面板中回答。`;
    return `Your background task ${T} needs your input${q ? `: "${q}"` : "."} You can answer it in the task panel.`;
  }
  if (isDue && !terminal) {
    if (hasBody && partial === false) {
      return zh ? `${T}已到约定时间，最终报告已在上方。` : `${T} is due now, and the final report is above.`;
    }
    const sofar = hasBody
      ? zh
        ? "上方已有一份阶段性报告"
        : "a partial report is above"
      : zh
        ? "目前还没有发布任何内容"
        : "nothing has been published yet";
    return zh
      ? `${T}已到约定时间，但还没有完成；目前已有的内容：${sofar}。研究仍在进行，完成后我会再告诉你。`
      : `${T} is due now but isn't finished; here is what exists so far: ${sofar}. It is still running, and I'll tell you again when it completes.`;
  }
  if (status === "succeeded") {
    const late = outcome === "missed" || kind.includes("late");
    if (zh) return `你的后台任务${T}已完成${late ? "（晚于约定时间）" : ""}${hasBody ? "，最终报告见上方。" : "。"}`;
    return `Your background task ${T} has finished${late ? ", later than the agreed time" : ""}${hasBody ? " — the final report is above." : "."}`;
  }
  if (status === "failed") {
    const reason = short(ev.error ?? "", 300).replace(/([^.!?。！？…])$/, zh ? "$1。" : "$1.");
    if (zh) return `你的后台任务${T}失败了${reason ? `：${reason}` : "。"}${hasBody ? "已发布的部分结果仍然保留。" : ""}`;
    return `Your background task ${T} failed${reason ? `: ${reason}` : "."}${hasBody ? " The partial results already published are still available." : ""}`;
  }
  if (status === "cancelled") {
    return zh ? `你的后台任务${T}已取消，已发布的部分结果仍然保留。` : `Your background task ${T} was cancelled; anything it had already published is kept.`;
  }
  const words = (zh ? STATUS_ZH : STATUS_EN)[status] ?? short(status, 40);
  return zh ? `后台任务${T}的最新状态：${words}。` : `Update on your background task ${T}: it is ${words}.`;
}

// --------------------------------------------------------------------- turn ---

export function toolCallIdFor(prompt: LanguageModelV3Prompt, text: string): string {
  return `call-${createHash("sha256").update(`${prompt.length}:${text}`).digest("hex").slice(0, 16)}`;
}

export function planOfflineTurn(prompt: LanguageModelV3Prompt, toolNames: string[]): OfflineTurn {
  const last = prompt[prompt.length - 1];
  // After a tool ran, always answer in words: another call here would loop.
  if (last?.role === "tool") return { type: "text", text: toolResultReply(prompt) };
  const text = lastUserText(prompt);
  const research = researchText(text);
  if (research !== null) return { type: "text", text: research };
  if (text.startsWith(NOTIFICATION_MARK)) {
    return { type: "text", text: notificationNarration(text, isChinese(latestRealUserText(prompt))) };
  }
  if (last?.role === "user" && toolNames.length > 0) {
    const intent = detectIntent(text);
    if (intent && toolNames.includes(intent.toolName)) {
      return { type: "tool-call", toolCallId: toolCallIdFor(prompt, text), toolName: intent.toolName, input: intent.input };
    }
  }
  return { type: "text", text: chatReply(text) };
}
