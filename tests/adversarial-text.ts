/**
 * Messages built to make text patterns backtrack: every entry is as long as a
 * chat message may be (MAX_MESSAGE_CHARS). Shared by the adversarial tests of
 * the phrase parser, the offline brain, agent routing and chat titles, and by
 * `bench/text.ts`.
 *
 * Each family repeats the tokens that some pattern's quantifiers can split in
 * many ways ("in in in", runs of digits or spaces, "and a half and a half",
 * Chinese numerals…), with and without the command prefix that lets an
 * anchored intent pattern reach them, and with a tail that makes the final
 * match fail, which is what forces the engine to try every split.
 */
import { MAX_MESSAGE_CHARS } from "@/lib/contract/schemas";

export interface AdversarialInput {
  name: string;
  text: string;
}

/** `unit` repeated to `max` characters (cut to fit), between `head` and `tail`. */
export function fill(unit: string, max = MAX_MESSAGE_CHARS, head = "", tail = ""): string {
  const room = Math.max(0, max - head.length - tail.length);
  return head + unit.repeat(Math.ceil(room / unit.length)).slice(0, room) + tail;
}

const SPACES = " ";
const FAMILIES: [string, string, string?, string?][] = [
  // [name, repeated unit, tail, lead (after the command prefix, so a word can start the run)]
  ["in-in", "in ", "x"],
  ["within-1", "within 1 ", "x"],
  ["in-1", "in 1 ", "x"],
  ["in-spaces", `in${SPACES.repeat(40)}`, "x"],
  ["digits", "1", " x"],
  ["digits-dots", "1.", "x"],
  ["digits-spaced", "1 ", "x"],
  ["spaces", SPACES, "x"],
  ["newlines", "\n", "x"],
  ["and-a-half", "and a half ", "x"],
  ["1-and-a-half", "1 and a half ", "x"],
  ["a-couple-of", "a couple of ", "x"],
  ["the-next", "the next ", "x"],
  ["from-now", "minutes from now ", "x"],
  ["1-minute", "1 minute ", "x"],
  ["in-10-minutes", "tell me in 10 minutes, ", "x"],
  ["within-10-minutes", "within 10 minutes and in 5 minutes ", "x"],
  ["even-if", "even if ", "x"],
  ["whatever-you", `whatever you${SPACES.repeat(30)}`, "x"],
  ["tell-me", "tell me ", "x"],
  ["tell-me-spaces", `tell me${SPACES.repeat(30)}`, "x"],
  ["and-tell-me", ", and please tell me the results ", "x"],
  ["punct", "!", "x"],
  // Trailing-run trims (a title's last punctuation, a word's last dashes) that something after the run defeats.
  ["dashes", "-", "x"],
  ["word-dashes", "-", "x", "a"],
  ["word-apostrophes", "'", "x", "a"],
  ["word-curly-apostrophes", "’", "x", "a"],
  ["dash-spaced", "- ", "x"],
  ["ellipsis", "…", "x"],
  ["colons", ":", "x"],
  ["tilde", "~", "x"],
  ["comma-space", ", ", "x"],
  ["zh-numerals", "一二三四五六七八九十百", "x"],
  ["zh-ten", "十", "x"],
  // A unit elsewhere in the text, so no shortcut skips the Chinese patterns.
  ["zh-numerals-unit", "一二三四五六七八九十百", "x 分钟"],
  ["zh-ten-unit", "十", "x分钟"],
  ["zh-digits-unit", "1", "x 秒"],
  ["zh-digits-spaces", `1${SPACES.repeat(20)}`, "x"],
  ["zh-minutes", "十分钟", "x"],
  ["zh-minutes-spaces", `十${SPACES.repeat(10)}个${SPACES.repeat(10)}`, "x"],
  ["zh-half", "半 个 ", "x"],
  ["zh-after", `十分钟后${SPACES.repeat(10)}，${SPACES.repeat(10)}`, "x"],
  ["zh-within", "在 十 分钟 内 ", "x"],
  ["zh-unfinished", `做不完${SPACES.repeat(20)}`, "x"],
  ["zh-commas", "，", "x"],
  ["zh-particles", "的了吧", "x"],
  ["zh-list", "列出", "x"],
  ["zh-stop", "停", "x"],
  ["mixed", "in 1 一 十 and a half 分钟 even if tell me ， ", "x"],
];

/** Command openings that let the anchored intent rules of the offline brain run on the rest. */
const PREFIXES = [
  "",
  "research ",
  "stop ",
  "is ",
  "how is ",
  "add x to ",
  "also cover ",
  "check ",
  "what's the status of ",
  "研究",
  "把",
  "列出",
];

/** The corpus: every family bare, and behind each command prefix. */
export function adversarialCorpus(max = MAX_MESSAGE_CHARS): AdversarialInput[] {
  const out: AdversarialInput[] = [];
  for (const [name, unit, tail = "", lead = ""] of FAMILIES) {
    for (const head of PREFIXES)
      out.push({ name: head ? `${head.trim()}+${name}` : name, text: fill(unit, max, head + lead, tail) });
  }
  return out;
}

/** A typical message, for throughput. */
export const TYPICAL_MESSAGE =
  "Please research the EU battery supply chain, focusing on cobalt and lithium, and tell me in 10 minutes even if it isn't done.";

const GROWTH = 8;
// Linear code takes about GROWTH times as long on inputs GROWTH times longer,
// quadratic code GROWTH² (64) times: the threshold sits between them with room
// on both sides, so neither a busy machine nor a fast one moves a verdict.
const SUPERLINEAR_RATIO = 24;
// Below this, timings are mostly noise (a collection, a tier-up of the JIT); a
// quadratic trim takes over 100 ms on a max-length message, a linear one a few.
const FLOOR_MS = 40;
// Enough to name the families that regressed without timing every slow input again.
const MAX_REPORTED = 3;

/**
 * The CPU milliseconds `f` takes, for bounds on synchronous work: on a loaded machine a call is preempted for longer
 * than it runs, so a wall-clock bound (or a wall-clock ratio, which then says quadratic) fails with nothing wrong
 * (seen with a dozen processes on two cores).
 */
export function cpuMs(f: () => unknown): number {
  const t0 = process.cpuUsage();
  f();
  const { user, system } = process.cpuUsage(t0);
  return (user + system) / 1000;
}

function timed(f: (text: string) => unknown, text: string, runs = 1): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++)
    best = Math.min(
      best,
      cpuMs(() => f(text)),
    );
  return best;
}

/**
 * The corpus inputs on which `f` grows faster than linearly: each one timed at
 * an eighth of a message and at a whole one. A ratio, not a wall-clock bound,
 * so it holds on a loaded machine; a suspect is measured again (best of three,
 * both sizes) before it counts, since one slow run says nothing.
 */
export function superlinearInputs(f: (text: string) => unknown): string[] {
  const small = adversarialCorpus(MAX_MESSAGE_CHARS / GROWTH);
  const large = adversarialCorpus(MAX_MESSAGE_CHARS);
  const suspect = (a: number, b: number) => b > FLOOR_MS && b > SUPERLINEAR_RATIO * a;
  const out: string[] = [];
  for (const [i, { name, text }] of small.entries()) {
    if (out.length === MAX_REPORTED) break;
    if (!suspect(timed(f, text), timed(f, large[i].text))) continue;
    const [a, b] = [timed(f, text, 3), timed(f, large[i].text, 3)];
    if (suspect(a, b)) out.push(`${name}: ${a.toFixed(1)} ms → ${b.toFixed(1)} ms at ${GROWTH}× the length`);
  }
  return out;
}
