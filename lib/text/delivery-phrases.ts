import { firstAtOrAfter } from "@/lib/util/sorted";

/**
 * Timed-delivery phrases in a user's own words (docs/state-machines.md#delivery-contracts).
 *
 * The host, not the model, turns "tell me in 10 minutes" into a contract, so
 * the due time is anchored on the accepted message and no later model turn can
 * move it. Only clear phrasings count: a false positive would invent a promise
 * the user never asked for, which is worse than missing one.
 */
export interface ParsedDelivery {
  mode: "at" | "by";
  dueInSeconds: number;
  reportIfUnfinished: boolean;
  /** False when the user asked to stop at the deadline ("stop at the deadline", 到点就停); absent otherwise. */
  allowOvertime?: false;
}

const MAX_SECONDS = 7 * 24 * 3600;

// ------------------------------------------------------------ linear time ---
//
// Every message (up to 16,000 characters) passes through here on the web
// server, so every pattern must stay linear in the text, whatever the text:
//  - no two quantifiers side by side that can share characters: `\s*X?\s*` is
//    written `\s*(?:X\s*)?`, which matches the same strings in one way only;
//  - a pattern that may begin on whitespace, or inside a run of digits or
//    numerals, never begins inside the run (NOT_MID_SPACE, the lookbehinds in
//    EN_COUNT and ZH_NUM_AT). Otherwise V8 retries from every character of the
//    run and scans to its end each time. Whatever matches from inside a run
//    also matches from the run's start, which the engine tries first (no match
//    ends inside a run), so this never changes what is found;
//  - work per hit uses indexes built once per text, never a rescan of the text.
// tests/adversarial-text.ts holds inputs built against each of these; the
// tests run them at full length and `bench/text.ts` times them.

/** Not between two whitespace characters: where a pattern that can start with whitespace may start. */
const NOT_MID_SPACE = "(?:(?<!\\s)|(?!\\s))";

// ---------------------------------------------------------------- English ---

const SMALL: Record<string, number> = {
  zero: 0,
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  ninety: 90,
};
const TENS = "twenty|thirty|forty|fifty";
const UNITS_WORDS = "one|two|three|four|five|six|seven|eight|nine";
const NUM_WORD = `(?:(?:${TENS})(?:[- ](?:${UNITS_WORDS}))?|${Object.keys(SMALL)
  .filter((k) => k !== "a" && k !== "an")
  .join("|")})`;
const EN_WORDS = `(?:${NUM_WORD}|an?|(?:a\\s+)?couple(?:\\s+of)?)`;
const EN_NUM = `(?:\\d+(?:\\.\\d+)?|${EN_WORDS})`;
// No bare "s": "the 1990s" is a decade, not a deadline.
const EN_UNIT = "(?:seconds?|secs?|minutes?|mins?|m|hours?|hrs?|hr|h)";
// Digits may touch their unit ("10min"); words may not ("am" is not "a minute").
const EN_COUNT = `(?:(?<!\\d)\\d+(?:\\.\\d+)?(?:\\s+and\\s+a\\s+half)?\\s*|${EN_WORDS}(?:\\s+and\\s+a\\s+half)?\\s+)`;

/** A duration, e.g. "10 minutes", "an hour and a half", "half an hour", "0.25 min", "a quarter of an hour". */
const EN_DURATION =
  `(?:half\\s+(?:an?\\s+)?(?:hour|minute)|(?:a\\s+)?quarter\\s+of\\s+an\\s+hour|` +
  `${EN_COUNT}${EN_UNIT}(?:\\s+and\\s+a\\s+half)?|` +
  `(?:the\\s+)?next\\s+(?:${EN_COUNT})?${EN_UNIT})(?![a-z])`;

const EN_TENS_UNITS = new RegExp(`^(${TENS})[- ](${UNITS_WORDS})$`);
const EN_NEXT_PHRASE = new RegExp(`^(?:the )?next (?:(.+?) ?)?(${EN_UNIT})$`);
const EN_COUNT_PHRASE = new RegExp(`^(${EN_NUM})( and a half)? ?(${EN_UNIT})( and a half)?$`);

function enNumber(word: string): number | null {
  const w = word.toLowerCase().replace(/\s+/g, " ").trim();
  if (/^\d+(\.\d+)?$/.test(w)) return Number(w);
  if (/couple/.test(w)) return 2;
  if (w in SMALL) return SMALL[w];
  const m = EN_TENS_UNITS.exec(w);
  return m ? SMALL[m[1]] + SMALL[m[2]] : null;
}

function unitSeconds(unit: string): number {
  const u = unit.toLowerCase();
  if (u.startsWith("h")) return 3600;
  if (u.startsWith("m")) return 60;
  return 1;
}

/** Seconds in an English duration phrase matched by EN_DURATION, or null. */
export function englishDurationSeconds(phrase: string): number | null {
  const p = phrase.toLowerCase().replace(/\s+/g, " ").trim();
  if (/^half (an? )?hour$/.test(p)) return 1800;
  if (/^half (an? )?minute$/.test(p)) return 30;
  if (/quarter of an hour$/.test(p)) return 900;
  const next = EN_NEXT_PHRASE.exec(p);
  if (next) {
    const n = next[1] ? enNumber(next[1]) : 1;
    return n === null ? null : n * unitSeconds(next[2]);
  }
  const m = EN_COUNT_PHRASE.exec(p);
  if (!m) return null;
  const n = enNumber(m[1]);
  if (n === null) return null;
  const half = m[2] || m[4] ? 0.5 : 0;
  return (n + half) * unitSeconds(m[3]);
}

const EN_BY = new RegExp(
  `\\b(?:within|in\\s+under|in\\s+less\\s+than|in\\s+no\\s+more\\s+than|no\\s+later\\s+than|at\\s+the\\s+latest\\s+in|in(?=\\s+(?:the\\s+)?next\\b)|by)\\s+(${EN_DURATION})(?:\\s+from\\s+now)?`,
  "gi",
);
const EN_AT = new RegExp(`\\b(?:in|after)\\s+(${EN_DURATION})(?:'?s?\\s+time)?(?:\\s+from\\s+now)?`, "gi");
const EN_FROM_NOW = new RegExp(`\\b(${EN_DURATION})\\s+from\\s+now\\b`, "gi");

// "in 10 minutes" is a promise only when it is about reporting back, or when it
// closes the clause; "what changed in 2 hours of trading" is not a deadline.
const EN_REPORT_WORDS =
  "(?:tell|let\\s+me\\s+know|get\\s+back|report|notify|ping|update\\s+me|remind|reply|respond|answer|results?|ready|done|finish(?:ed)?|deliver|send|give\\s+me|back\\s+to\\s+me|hear\\s+back)";
/** Every place a report verb starts (zero-width, so overlapping ones are all found). */
const EN_REPORT_VERB_STARTS = new RegExp(`\\b(?=${EN_REPORT_WORDS}\\b)`, "gi");
const EN_CLAUSE_END =
  /^\s*(?:$|[.,;:!?)]|\b(?:and|then|even|please|ok|okay|thanks?|with|tell|let|so|but|if|at\s+the\s+latest)\b)/i;

const EN_ANYWAY = [
  /\beven\s+if\b[^.,;!?]{0,40}?\b(?:done|finished|complete|completed|ready|unfinished|incomplete|through|over)\b/gi,
  /\b(?:report|tell\s+me|let\s+me\s+know|send\s+it|answer)\s+(?:it\s+)?anyway\b/gi,
  /\b(?:done|finished|complete)\s+or\s+not\b/gi,
  /\bwhatever\s+you(?:'ve|\s+have)?\s+(?:(?:got|have|found)\s*)?(?:so\s+far|by\s+then|at\s+that\s+point)\b/gi,
  /\bpartial\s+(?:results?|answers?|reports?)\s+(?:is|are)\s+(?:fine|ok|okay|acceptable)\b/gi,
];

/** "Stop at the deadline": no overtime. "Don't stop at the deadline" is not one. */
const EN_STOP = [
  /(?<!\b(?:don'?t|do\s+not|never|not)\s+)\bstop\s+(?:at|by|when\s+you\s+(?:hit|reach))\s+the\s+(?:deadline|time\s+limit)\b/gi,
  /\b(?:don'?t|do\s+not|never)\s+(?:go|run|work|keep\s+going)\s+(?:past|beyond|over)\s+the\s+(?:deadline|time\s+limit)\b/gi,
  /\bno\s+overtime\b/gi,
];

// ---------------------------------------------------------------- Chinese ---

const ZH_DIGIT: Record<string, number> = {
  零: 0,
  〇: 0,
  一: 1,
  二: 2,
  两: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
};

/** Chinese or Arabic numeral (十五, 二十, 两, 一百二十, 30, ３０) → number. */
export function chineseNumber(s: string): number | null {
  const t = s.replace(/[０-９]/g, (d) => String.fromCharCode(d.charCodeAt(0) - 0xfee0)).replace(/．/g, ".");
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t);
  if (!/^[零〇一二两三四五六七八九十百]+$/.test(t)) return null;
  let total = 0;
  let current = 0;
  for (const ch of t) {
    if (ch === "百") {
      total += (current || 1) * 100;
      current = 0;
    } else if (ch === "十") {
      total += (current || 1) * 10;
      current = 0;
    } else current = ZH_DIGIT[ch];
  }
  return total + current;
}

const ZH_NUM = "(?:[0-9０-９]+(?:[.．][0-9０-９]+)?|[零〇一二两三四五六七八九十百]+)";
/** ZH_NUM for searching: starts only where its run of digits or numerals starts. */
const ZH_NUM_AT =
  "(?:(?<![0-9０-９])[0-9０-９]+(?:[.．][0-9０-９]+)?|(?<![零〇一二两三四五六七八九十百])[零〇一二两三四五六七八九十百]+)";
// A lone 分 is left out on purpose: 十分 also means "very".
const ZH_UNIT = "(?:小时|钟头|分钟|秒钟|秒)";
// One numeral, then what may follow it (个半小时, 刻钟, 个小时…), rather than one alternative per
// shape that each reads the numeral again: the same matches, in less than half the time.
const ZH_DURATION =
  `(?:${ZH_NUM_AT}\\s*(?:(?:个\\s*)?半\\s*(?:个\\s*)?(?:小时|钟头)|刻钟|(?:个\\s*)?${ZH_UNIT})|` +
  `半\\s*(?:个\\s*)?(?:小时|钟头|分钟))`;
/** Every Chinese duration names its unit with one of these: without them the Chinese patterns need not run. */
const ZH_UNIT_CHAR = /[时钟秒]/;

const ZH_HALF_HOURS_PHRASE = new RegExp(`^(${ZH_NUM})个?半个?(?:小时|钟头)$`);
const ZH_QUARTERS_PHRASE = new RegExp(`^(${ZH_NUM})刻钟$`);
const ZH_COUNT_PHRASE = new RegExp(`^(${ZH_NUM})个?(小时|钟头|分钟|秒钟|秒)$`);

export function chineseDurationSeconds(phrase: string): number | null {
  const p = phrase.replace(/\s+/g, "");
  const halfHours = ZH_HALF_HOURS_PHRASE.exec(p);
  if (halfHours) {
    const n = chineseNumber(halfHours[1]);
    return n === null ? null : (n + 0.5) * 3600;
  }
  if (/^半个?(?:小时|钟头)$/.test(p)) return 1800;
  if (/^半个?分钟$/.test(p)) return 30;
  const quarter = ZH_QUARTERS_PHRASE.exec(p);
  if (quarter) {
    const n = chineseNumber(quarter[1]);
    return n === null ? null : n * 900;
  }
  const m = ZH_COUNT_PHRASE.exec(p);
  if (!m) return null;
  const n = chineseNumber(m[1]);
  if (n === null) return null;
  return n * (m[2] === "小时" || m[2] === "钟头" ? 3600 : m[2] === "分钟" ? 60 : 1);
}

const ZH_VERB = "(?:告诉|通知|给|回复|汇报|报告|发|交|提醒|答复|回|跟我说|和我说|说)";
const ZH_AT = new RegExp(
  `(${ZH_DURATION})\\s*(?:后|以后|之后)\\s*(?:[，,]\\s*)?(?:(?:再|就|请)\\s*)?(?=${ZH_VERB})`,
  "g",
);
const ZH_BY = new RegExp(`(?:在|于|${NOT_MID_SPACE})\\s*(${ZH_DURATION})\\s*(?:之内|以内|内)`, "g");
const ZH_BY_PREFIX = new RegExp(`(?:不超过|最多|最晚|最迟)\\s*(${ZH_DURATION})`, "g");
const ZH_ANYWAY = [
  /(?:如果|要是|就算|即使|即便)?(?:做不完|没做完|没有做完|没完成|没有完成|未完成|完不成|做不好|还没好|没好|没写完|写不完)(?:的话)?\s*(?:[，,]\s*)?也/g,
  /(?:不管|无论)(?:是否|有没有|有无)?(?:做完|完成|写完|好)(?:了|与否|没有)?/g,
];

const ZH_STOP = [/(?:到点|到时间|时间到了?)就?(?:停|停止|停下)|(?:不要|不许|不能|别)超时/g];

// ----------------------------------------------------------------- parser ---

interface Hit {
  mode: "at" | "by";
  seconds: number;
  index: number;
  /** Where the duration itself starts; stripping removes only accepted phrases. */
  at: number;
}

const durationStart = (m: RegExpMatchArray) => m.index! + m[0].indexOf(m[1]);

/** Whether `i` lies in one of the ascending, disjoint half-open `ranges`. */
function inRanges(ranges: readonly [number, number][], i: number): boolean {
  let lo = 0;
  let hi = ranges.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ranges[mid][1] <= i) lo = mid + 1;
    else hi = mid;
  }
  return lo < ranges.length && ranges[lo][0] <= i;
}

/**
 * Whether the clause before an index (back to the last . ; ! ? or newline)
 * names a report verb. Built once per text: asking it for each "in 10 minutes"
 * would otherwise rescan the text each time.
 */
function reportVerbBefore(text: string): (index: number) => boolean {
  const cuts: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "." || c === ";" || c === "!" || c === "?" || c === "\n") cuts.push(i);
  }
  const verbs = Array.from(text.matchAll(EN_REPORT_VERB_STARTS), (m) => m.index!);
  // A verb that starts in the clause also ends in it: it cannot hold a cut or
  // run into the "in"/"after" at `index`, which follows a word boundary.
  return (index) => {
    const k = firstAtOrAfter(cuts, index);
    const clauseStart = k === 0 ? 0 : cuts[k - 1] + 1;
    const v = firstAtOrAfter(verbs, clauseStart);
    return v < verbs.length && verbs[v] < index;
  };
}

function durationHits(text: string): Hit[] {
  const hits: Hit[] = [];
  const byRanges: [number, number][] = [];
  for (const m of text.matchAll(EN_BY)) {
    const s = englishDurationSeconds(m[1]);
    if (s === null) continue;
    hits.push({ mode: "by", seconds: s, index: m.index!, at: durationStart(m) });
    byRanges.push([m.index!, m.index! + m[0].length]);
  }
  let reported: ((index: number) => boolean) | null = null;
  for (const m of text.matchAll(EN_AT)) {
    if (inRanges(byRanges, m.index!)) continue;
    const s = englishDurationSeconds(m[1]);
    if (s === null) continue;
    const after = text.slice(m.index! + m[0].length);
    const isAfter = /^after/i.test(m[0]);
    reported ??= reportVerbBefore(text);
    if (reported(m.index!) || (!isAfter && EN_CLAUSE_END.test(after)))
      hits.push({ mode: "at", seconds: s, index: m.index!, at: durationStart(m) });
  }
  // "10 minutes from now" right after an accepted "in"/"within" is the same phrase.
  const taken = hits.map((h) => h.index).sort((a, b) => a - b);
  let lastFromNow = -Infinity;
  const nearTaken = (i: number) => {
    const k = firstAtOrAfter(taken, i - 11);
    return (k < taken.length && taken[k] < i + 12) || i - lastFromNow < 12;
  };
  for (const m of text.matchAll(EN_FROM_NOW)) {
    if (inRanges(byRanges, m.index!) || nearTaken(m.index!)) continue;
    const s = englishDurationSeconds(m[1]);
    if (s === null) continue;
    hits.push({ mode: "at", seconds: s, index: m.index!, at: durationStart(m) });
    lastFromNow = m.index!;
  }
  const zh = ZH_UNIT_CHAR.test(text);
  for (const re of zh ? [ZH_BY, ZH_BY_PREFIX] : []) {
    for (const m of text.matchAll(re)) {
      const s = chineseDurationSeconds(m[1]);
      if (s !== null) hits.push({ mode: "by", seconds: s, index: m.index!, at: durationStart(m) });
    }
  }
  for (const m of zh ? text.matchAll(ZH_AT) : []) {
    const s = chineseDurationSeconds(m[1]);
    if (s !== null) hits.push({ mode: "at", seconds: s, index: m.index!, at: durationStart(m) });
  }
  return hits.filter((h) => h.seconds > 0 && h.seconds <= MAX_SECONDS).sort((a, b) => a.index - b.index);
}

function anyMatch(patterns: RegExp[], text: string): boolean {
  return patterns.some((re) => {
    re.lastIndex = 0;
    return re.test(text);
  });
}

const wantsReportAnyway = (text: string) => anyMatch([...EN_ANYWAY, ...ZH_ANYWAY], text);
const wantsStopAtDeadline = (text: string) => anyMatch([...EN_STOP, ...ZH_STOP], text);

/**
 * The delivery contract a message asks for, or null when it names no clear
 * deadline. "within" wins over "in" when both appear: the stricter promise is
 * the one the user will hold us to.
 */
export function parseDeliveryPhrase(text: string): ParsedDelivery | null {
  const hits = durationHits(text);
  if (hits.length === 0) return null;
  const chosen = hits.find((h) => h.mode === "by") ?? hits[0];
  return {
    mode: chosen.mode,
    dueInSeconds: Math.round(chosen.seconds * 1000) / 1000,
    reportIfUnfinished: wantsReportAnyway(text),
    ...(wantsStopAtDeadline(text) ? { allowOvertime: false as const } : {}),
  };
}

// --------------------------------------------------------------- stripping ---

const EN_TELL =
  "(?:tell\\s+me|let\\s+me\\s+know|get\\s+back\\s+to\\s+me|report\\s+back|notify\\s+me|ping\\s+me|update\\s+me|remind\\s+me|send\\s+(?:it|me\\s+the\\s+results?)|give\\s+me\\s+(?:the\\s+)?(?:results?|an?\\s+answer))";
const EN_TELL_TAIL =
  "(?:\\s+(?:the\\s+)?(?:results?|answer|what\\s+you\\s+(?:find|found|have)|about\\s+it|how\\s+it\\s+went))?";
/** "…, and tell me" before a delivery phrase. */
const EN_TELL_LEAD = `(?:(?:[,;]|${NOT_MID_SPACE})\\s*(?:and\\s+|then\\s+|but\\s+)?(?:please\\s+)?${EN_TELL}${EN_TELL_TAIL}\\s*)?`;
const ZH_TELL = `(?:${ZH_VERB}(?:我|给我)?(?:一下|一声)?(?:结果|答案|结论|进展|情况)?)?`;
const zhLead = (words: string) =>
  `(?<lead>(?:[，,]|${NOT_MID_SPACE})\\s*(?:(?:然后|并且|并|再)\\s*)?(?:请\\s*)?(?:(?:${words})\\s*)?)`;

// Chinese first: its phrases carry their own verbs ("十分钟后告诉我结果").
const STRIP_ZH_AT = new RegExp(
  `${zhLead("在|于")}(?<d>${ZH_DURATION})\\s*(?:后|以后|之后)\\s*(?:(?:再|就|请)\\s*)?${ZH_TELL}`,
  "g",
);
const STRIP_ZH_BY = new RegExp(
  `${zhLead("在|于|不超过|最多|最晚|最迟")}(?<d>${ZH_DURATION})\\s*(?:(?:之内|以内|内)\\s*)?(?:(?:就|请)\\s*)?${ZH_TELL}`,
  "g",
);
const STRIP_ZH_ANYWAY = ZH_ANYWAY.map(
  (re) => new RegExp(`(?:[，,]|${NOT_MID_SPACE})\\s*${re.source}\\s*(?:要\\s*)?${ZH_TELL}`, "g"),
);
const STRIP_EN_KEYWORD = new RegExp(
  `(?<lead>${EN_TELL_LEAD}\\b(?:within|in\\s+under|in\\s+less\\s+than|in\\s+no\\s+more\\s+than|no\\s+later\\s+than|at\\s+the\\s+latest\\s+in|by|in|after)\\s+)(?<d>${EN_DURATION})(?:'?s?\\s+time)?(?:\\s+from\\s+now)?(?:\\s+at\\s+the\\s+latest)?`,
  "gi",
);
const STRIP_EN_FROM_NOW = new RegExp(`(?<lead>${EN_TELL_LEAD})(?<d>${EN_DURATION})\\s+from\\s+now`, "gi");
const STRIP_ZH_STOP = ZH_STOP.map(
  (re) => new RegExp(`(?:[，,]|${NOT_MID_SPACE})\\s*(?:(?:但是?|并且|并|而且)\\s*)?${re.source}`, "g"),
);
const STRIP_EN_STOP = EN_STOP.map(
  (re) => new RegExp(`(?:[,;]|${NOT_MID_SPACE})\\s*(?:(?:and|but)\\s+)?(?:please\\s+)?${re.source}`, "gi"),
);
const STRIP_EN_ANYWAY = EN_ANYWAY.map((re) => new RegExp(`${EN_TELL_LEAD}(?:,\\s*)?(?:and\\s+)?${re.source}`, "gi"));
// A "tell me" left without its time ("…, and tell me.") is noise in a title.
const STRIP_EN_TELL = new RegExp(
  `(?:[,;]|${NOT_MID_SPACE})\\s*(?:and\\s+|then\\s+)?(?:please\\s+)?${EN_TELL}${EN_TELL_TAIL}\\s*(?=$|[.,;!?])`,
  "gi",
);

/**
 * Removes delivery phrases (and the "and tell me" that carried them) so what is
 * left reads as the topic; used for task titles.
 */
export function stripDeliveryPhrases(text: string): string {
  // Positions are those of the original text; every removal below keeps the
  // length (spaces) so they stay valid until the final tidy-up.
  const accepted = new Set(durationHits(text).map((h) => h.at));
  let out = text;
  const blank = (s: string) => " ".repeat(s.length);
  /** Removes matches whose named group `d` (the duration) is a phrase the parser accepted. */
  const removeAccepted = (re: RegExp) => {
    out = out.replace(re, (...args) => {
      const match = args[0] as string;
      const offset = args[args.length - 3] as number;
      const groups = args[args.length - 1] as { lead?: string; d: string };
      const at = offset + match.indexOf(groups.d, (groups.lead ?? "").length);
      return accepted.has(at) ? blank(match) : match;
    });
  };
  const remove = (re: RegExp) => {
    out = out.replace(re, blank);
  };
  if (accepted.size > 0 && ZH_UNIT_CHAR.test(text)) {
    removeAccepted(STRIP_ZH_AT);
    removeAccepted(STRIP_ZH_BY);
  }
  STRIP_ZH_ANYWAY.forEach(remove);
  if (accepted.size > 0) {
    removeAccepted(STRIP_EN_KEYWORD);
    removeAccepted(STRIP_EN_FROM_NOW);
  }
  STRIP_EN_ANYWAY.forEach(remove);
  STRIP_EN_STOP.forEach(remove);
  STRIP_ZH_STOP.forEach(remove);
  remove(STRIP_EN_TELL);
  // The lookbehinds make each run (of spaces, of stops, of trailing commas)
  // match from its start only; see "linear time" above.
  return out
    .replace(/(?<!\s)\s+([,.;!?，。；！？])/g, "$1")
    .replace(/(?<![.!?。！？])([.!?。！？])[.!?。！？]+/g, "$1")
    .replace(/([,;，；])\s*(?=[,.;!?，。；！？]|$)/g, "")
    .replace(/\s{2,}/g, " ")
    .replace(/^[\s,;，；。.]+|(?<![\s,;，；])[\s,;，；]+$/g, "")
    .trim();
}
