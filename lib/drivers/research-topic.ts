import { stripDeliveryPhrases } from "@/lib/text/delivery-phrases";
import { termsOf } from "./research-read";

/**
 * What a research request is about, apart from how it was asked: the delivery
 * phrase ("and tell me in 2 minutes", "10分钟后告诉我") belongs to the host's
 * contract, the politeness and the verb ("could you research …") to the chat.
 * Neither may reach a report: the writer sees the request without its delivery
 * phrase, searches start from the bare topic, and the report's title is made
 * from it. Every pattern here is anchored or a set lookup (linear time: these
 * run on users' whole messages).
 */

// Politeness and fillers before the verb, as the offline intent rules read them.
const EN_LEAD =
  /^(?:(?:please|pls|hey|hi|hello|ok(?:ay)?|so|now|herald|alright|can\s+you|could\s+you|would\s+you|will\s+you|i\s+(?:want|need)\s+you\s+to|i'?d\s+like\s+you\s+to|i\s+would\s+like\s+you\s+to|go\s+ahead\s+and|help\s+me|let'?s)\b[\s,:]*)*/i;
const EN_VERB =
  /^(?:research|investigate|look\s+into|analy[sz]e|dig\s+into|explore|find\s+out\s+about|write\s+(?:me\s+)?(?:up\s+)?(?:a|an)\s+(?:short\s+|brief\s+|quick\s+|detailed\s+|full\s+)?(?:report|analysis|brief(?:ing)?|summary|memo)\s+(?:on|about|of|into)|do\s+(?:some\s+|a\s+)?(?:research|analysis|deep\s+dive)\s+(?:on|into|about|of))\b\s*/i;
const ZH_LEAD = /^(?:请你?|麻烦你?|帮我|帮忙|能不能|能否|可以|你|给我|我想让你|我要你|我想|我要|我需要|现在)*/;
const ZH_VERB = /^(?:深入研究|研究|调研|分析|调查|了解|写一份(?:关于)?)(?:一下|下)?/;
const TRAILING = /(?<![\s.,;:!?。，；：！？~…])[\s.,;:!?。，；：！？~…]+$/;

/** The request as the writer should read it: everything the user asked, minus when to tell them. */
export function requestForWriting(prompt: string): string {
  return stripDeliveryPhrases(prompt).trim() || prompt.trim();
}

/** The bare topic: no delivery phrase, no "please research", no closing stop. */
export function topicOf(prompt: string): string {
  return bareTopic(stripDeliveryPhrases(prompt), prompt);
}

/** `topicOf` for a text whose delivery phrases are gone already (`prompt`: what to fall back on if nothing is left). */
export function bareTopic(stripped: string, prompt = stripped): string {
  const s = stripped.replace(/\s+/g, " ").trim();
  const t = s
    .replace(EN_LEAD, "")
    .replace(EN_VERB, "")
    .replace(ZH_LEAD, "")
    .replace(ZH_VERB, "")
    .replace(TRAILING, "")
    .trim();
  return (t || s || prompt.trim()).slice(0, 160);
}

/** The first clause of a topic: the rest ("…, focusing on X") is instructions, not a name. */
function firstClause(topic: string): string {
  return (topic.split(/[.;!?](?:\s|$)|[。；！？\n]|，|,\s+/, 1)[0] ?? topic).replace(TRAILING, "").trim();
}

/**
 * The report's title: the task's own title when it names a topic; when it
 * carries the request's delivery phrase or is the whole request (a model may
 * pass it on as it came), the cleaned topic's first clause instead.
 */
export function reportTitle(title: string, prompt: string): string {
  const given = title.replace(/\s+/g, " ").trim();
  const stripped = stripDeliveryPhrases(given).trim();
  const raw = stripped !== given || given === prompt.replace(/\s+/g, " ").trim() || given.length > 100;
  if (!raw && given) return given;
  const clause = firstClause(stripped ? bareTopic(stripped, given) : topicOf(prompt));
  const out = clause.length > 80 ? `${clause.slice(0, 80).replace(/\s+\S*$/, "")}…` : clause;
  if (!out) return given || prompt.trim().slice(0, 80);
  return out[0].toUpperCase() + out.slice(1);
}

/**
 * What kind of topic a request names, for a model that cannot read one (the
 * offline model plans its sections by it): a history gets periods and legacy,
 * a decision its options and risks, anything else facts and open questions.
 */
export type TopicKind = "history" | "decision" | "comparison" | "market" | "technology" | "general";

const KIND_WORDS: [Exclude<TopicKind, "general">, Set<string>, string[]][] = [
  [
    "history",
    new Set([
      "history",
      "histories",
      "historical",
      "historically",
      "origin",
      "origins",
      "evolution",
      "ancient",
      "medieval",
      "century",
      "centuries",
      "dynasty",
      "empire",
      "renaissance",
      "prehistoric",
      "revolution",
      "war",
      "wars",
      "era",
    ]),
    ["历史", "起源", "演变", "沿革", "古代", "朝代", "王朝", "战争", "革命", "世纪", "发展史", "简史"],
  ],
  [
    "decision",
    new Set([
      "should",
      "whether",
      "choose",
      "choosing",
      "decide",
      "deciding",
      "decision",
      "strategy",
      "strategies",
      "recommend",
      "recommendation",
      "recommendations",
      "options",
      "worth",
      "pros",
      "cons",
    ]),
    ["是否", "要不要", "该不该", "应不应该", "应该", "选择", "策略", "建议", "值得", "利弊", "方案"],
  ],
  [
    "comparison",
    new Set(["vs", "versus", "compare", "compared", "comparing", "comparison", "difference", "differences"]),
    ["对比", "比较", "区别", "差异", "还是"],
  ],
  [
    "market",
    new Set([
      "market",
      "markets",
      "industry",
      "industries",
      "company",
      "companies",
      "price",
      "prices",
      "pricing",
      "sales",
      "demand",
      "economy",
      "economic",
      "business",
      "startup",
      "startups",
      "revenue",
      "investment",
      "investors",
      "stocks",
    ]),
    ["市场", "行业", "产业", "公司", "企业", "价格", "销量", "经济", "商业", "投资"],
  ],
  [
    "technology",
    new Set([
      "technology",
      "technologies",
      "technique",
      "techniques",
      "mechanism",
      "algorithm",
      "algorithms",
      "protocol",
      "protocols",
      "physics",
      "chemistry",
      "engineering",
      "works",
      "science",
    ]),
    ["原理", "技术", "机制", "算法", "工作原理", "如何工作", "科学"],
  ],
];

export function topicKind(text: string): TopicKind {
  const words = new Set(text.toLowerCase().match(/[a-z]+/g) ?? []);
  for (const [kind, en, zh] of KIND_WORDS) {
    for (const w of en) if (words.has(w)) return kind;
    if (zh.some((z) => text.includes(z))) return kind;
  }
  return "general";
}

// An instruction's own verbs ("focus on", "also cover", 重点): they say how to weigh, not what to find.
const STEER_LEAD =
  /^(?:(?:please|pls|also|and|but|then|now|ok(?:ay)?|make\s+sure\s+(?:to|you)|don'?t\s+forget\s+(?:to|about)|(?:can|could|would)\s+you|i\s+(?:want|need)\s+(?:you\s+to|to\s+know|more\s+(?:on|about))|focus(?:ing)?(?:\s+more)?\s+on|concentrate\s+on|look\s+(?:at|into)|include|cover|mention|add|emphasi[sz]e|talk\s+about|more\s+(?:on|about)|especially|in\s+particular)\b[\s,:]*)*/i;
const ZH_STEER_LEAD =
  /^(?:(?:另外|此外|还有|也|还|请|要|再|把|重点|着重|侧重|关注|聚焦|多写|多讲|加上|包括|涵盖|补充(?:一下|一点)?|写一下|讲一下|讲讲|说说)+(?:写|讲|说|谈)?)?/;

/** What an instruction sent while the task ran asks for, without its verbs: "focus on the period before Gutenberg." → "the period before Gutenberg". */
export function focusOf(instruction: string): string {
  const t = instruction.replace(/\s+/g, " ").trim();
  return (
    t.replace(STEER_LEAD, "").replace(ZH_STEER_LEAD, "").replace(TRAILING, "").trim() || t.replace(TRAILING, "")
  ).slice(0, 160);
}

const STEERING_WORDS = new Set([
  "focus",
  "focusing",
  "include",
  "cover",
  "also",
  "more",
  "please",
  "make",
  "sure",
  "mention",
  "especially",
  "only",
  "section",
]);

/** The words an instruction asks a section to lean towards (what sentences and pages are scored by). */
export function steeringTerms(instructions: readonly string[]): string[] {
  return [...new Set(instructions.flatMap((i) => termsOf(focusOf(i))))].filter((t) => !STEERING_WORDS.has(t));
}
