import { firstAtOrAfter } from "@/lib/util/sorted";
import { TOOLS } from "../tool-names";
import type { ToolInputs } from "../tools";
import { stripDeliveryPhrases } from "@/lib/text/delivery-phrases";
import { offlineText } from "@/lib/i18n/offline";
import { isChinese } from "@/lib/i18n/detect";
import { HOST_MARK } from "./prompt-text";

/**
 * What the user asked for, read from their message alone: pure rules from text
 * to the tool to call and its arguments, or null for ordinary chat.
 */
export type Intent = { [N in keyof ToolInputs]: { toolName: N; input: Partial<ToolInputs[N]> } }[keyof ToolInputs];

// Politeness and fillers before the verb: "ok, could you please research …".
const EN_LEAD =
  /^(?:(?:please|pls|hey|hi|hello|ok(?:ay)?|so|now|right|herald|alright|can\s+you|could\s+you|would\s+you|will\s+you|would\s+you\s+mind|i\s+(?:want|need)\s+you\s+to|i'?d\s+like\s+you\s+to|i\s+would\s+like\s+you\s+to|go\s+ahead\s+and|help\s+me|let'?s)\b[\s,:]*)*/i;
const ZH_LEAD = /^(?:请你?|麻烦你?|帮我|帮忙|能不能|能否|可以|你|给我|我想让你|我要你|我想|我要|我需要|现在)*/;

function lead(text: string): string {
  return text.replace(EN_LEAD, "").replace(ZH_LEAD, "").trim();
}

// Intent rules run on whole messages (up to 16,000 characters) in the worker,
// so each stays linear whatever the text (same rules as lib/text/delivery-phrases.ts):
// a pattern that could start at every character of a run (spaces, stops,
// particles) may start only where the run starts, `\s*` never sits next to a
// lazy group that can take the same spaces, and a `\s+` before `(.+)$` takes
// its whole run. None of this changes what matches, except that a verb and its
// keyword with only spaces between ("how is   going", "add   to the research")
// no longer read as a request about a task named " ". tests/adversarial-text.ts
// holds the inputs that took seconds to minutes before.
export const TRAILING_PUNCT = /(?<![\s.,;:!?。，；：！？~…])[\s.,;:!?。，；：！？~…]+$/;

const EN_SMALL = new Set([
  "a",
  "an",
  "and",
  "as",
  "at",
  "but",
  "by",
  "for",
  "in",
  "of",
  "on",
  "or",
  "the",
  "to",
  "vs",
  "via",
  "with",
  "from",
  "into",
]);

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
  t =
    t.split(
      /(?:[.!?;](?:\s|$)|[。！？；\n]|，|,\s+(?=(?:and|then|please|tell|let|focus|focusing|include|including|especially|particularly|specifically|make|so|but|with|also|i\s+need|i\s+want)\b))/i,
      1,
    )[0] ?? t;
  for (let i = 0; i < 4; i++) {
    t = t
      .replace(/^(?:the|my|our|a|an|some|about|on|into|regarding|me|for\s+me|a\s+bit\s+(?:on|about))\s+/i, "")
      .replace(/^(?:一下|下|一份|有关|关于|我的|我们的|这个|那个)/, "")
      .replace(/(?<!\s)\s+(?:for\s+me|please|in\s+detail|thoroughly|now|for\s+now|asap)$/i, "")
      .replace(/(?:吧|呢|啊|的报告|的研究|的情况)$/, "")
      .replace(TRAILING_PUNCT, "")
      .trim();
  }
  if (!t) return offlineText(isChinese(topic) ? "zh" : "en", "taskTitleFallback");
  if (isChinese(t)) return t.length > 40 ? `${t.slice(0, 39)}…` : t;
  if (t.length > 80) t = `${t.slice(0, 80).replace(/\s+\S*$/, "")}…`;
  return titleCase(t);
}

const GENERIC_TARGET =
  /^(?:it|that|this|them|those|these|everything|all|all\s+of\s+them|the\s+lot|one|the\s+one|whatever|anything)$/i;

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
      .replace(
        /(?<!\s)\s*\b(?:research|report|task|job|analysis|investigation|study|work|background\s+task|one|thing|project)s?$/i,
        "",
      )
      .replace(/^(?:那个|这个|我的|关于|一下|掉|把|正在|在)+/, "")
      .replace(/(?<!的|吧|了|呢|吗|啊|掉|一下)(?:的|吧|了|呢|吗|啊|掉|一下)+$/, "")
      .replace(/(?:的)?(?:研究|调研|调查|分析|任务|报告|工作)$/, "")
      .replace(/^(?:研究|调研|调查|分析)(?=.)/, "")
      .trim();
  }
  return GENERIC_TARGET.test(t) ? "" : t;
}

const withTask = (target: string): { task?: string } => (target ? { task: target } : {});

function detectCancel(text: string): Intent | null {
  const t = lead(text);
  // Not "never mind" or "forget it": they end chat topics far more often than tasks.
  const en = /^(?:stop|cancel|abort|kill|halt|terminate|call\s+off|scrap|ditch)\b\s*(.*)$/is.exec(t);
  if (en) return { toolName: TOOLS.cancel, input: withTask(cleanTarget(en[1])) };
  const zhVerbFirst =
    /^(?:停止|取消|停掉|终止|中止|停下|别再(?:研究|调研|查|做)?|不要再(?:研究|调研|查|做)?|停)(?:一下)?(.*)$/s.exec(t);
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
  const zh =
    /哪些任务|什么任务|在跑什么|跑着什么|正在运行|任务列表|后台任务|有没有任务|在做什么|在忙什么|进行中的任务|所有任务|任务都/;
  if (!en.some((re) => re.test(t)) && !zh.test(text) && !listsTasksOnOneLine(text)) return null;
  const activeOnly =
    /\b(?:running|active|in\s+progress|pending|working\s+on|going\s+on|current|open)\b/.test(t) ||
    /在跑|正在|进行中|运行|在做|在忙/.test(text);
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
  if (addTo)
    return { toolName: TOOLS.update, input: { ...withTask(cleanTarget(addTo.target)), message: addTo.message.trim() } };
  const also =
    /^(?:please\s+)?(?:and\s+)?also\s+(?:please\s+)?(cover|include|add|consider|mention|address|look\s+(?:at|into)|research|analy[sz]e|investigate|compare|check|explore|focus\s+on)\s+(?!\s)(.+)$/i.exec(
      t,
    );
  if (also) {
    const objectOnly = /^(?:cover|include|add|consider|mention|address|look)/i.test(also[1]);
    return { toolName: TOOLS.update, input: { message: objectOnly ? also[2].trim() : `${also[1]} ${also[2]}`.trim() } };
  }
  // "don't forget" then two spaces, as `forget\s+(?:…\s+)?\s+` always asked, without splitting a run of them every way.
  const plain =
    /^(?:include|cover|make\s+sure\s+(?:to|you)\s+(?:cover|include|mention|look\s+at)|don'?t\s+forget(?:\s+(?:to\s+(?:cover|include|mention)|about))?\s|tell\s+the\s+(?:research|task)\s+to)\s+(?!\s)(.+)$/i.exec(
      t,
    );
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
  if (!t || t.startsWith(HOST_MARK)) return null;
  return detectCancel(t) ?? detectList(t) ?? detectCheck(t) ?? detectUpdate(t) ?? detectStart(t);
}
