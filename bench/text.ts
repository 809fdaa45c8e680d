// Text patterns on hostile input: every routine that runs patterns over a chat
// message, timed on the adversarial corpus (tests/adversarial-text.ts) at the
// longest message the API accepts. Started by bench/run.ts; on its own:
// `npx tsx bench/text.ts`. No database, a few seconds.
import { pathToFileURL } from "node:url";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { MAX_MESSAGE_CHARS } from "@/lib/contract/schemas";
import { parseDeliveryPhrase, stripDeliveryPhrases } from "@/lib/text/delivery-phrases";
import { planOfflineTurn } from "../lib/agent/offline/brain";
import { cleanTarget, detectIntent, taskTitleFrom } from "../lib/agent/offline/intent";
import { TOOLS } from "../lib/agent/tool-names";
import { adversarialCorpus, TYPICAL_MESSAGE } from "../tests/adversarial-text";

export interface RoutineFigures {
  /** Per call over the corpus at full length. */
  medianMs: number;
  maxMs: number;
  /** The corpus entry behind maxMs. */
  worstInput: string;
  /** Calls per second on TYPICAL_MESSAGE. */
  typicalPerSecond: number;
}

export interface TextBench {
  chars: number;
  inputs: number;
  routines: Record<string, RoutineFigures>;
  /** parseDeliveryPhrase + stripDeliveryPhrases on one message, the web server's share, worst input. */
  worstParseAndStripMs: number;
}

const toolNames = Object.values(TOOLS);
const userTurn = (text: string): LanguageModelV3Prompt => [{ role: "user", content: [{ type: "text", text }] }];

const ROUTINES: Record<string, (text: string) => unknown> = {
  parseDeliveryPhrase,
  stripDeliveryPhrases,
  detectIntent,
  taskTitleFrom,
  cleanTarget,
  planOfflineTurn: (text) => planOfflineTurn(userTurn(text), toolNames),
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function time(f: () => unknown): number {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
}

export function textBench(chars = MAX_MESSAGE_CHARS): TextBench {
  const corpus = adversarialCorpus(chars);
  // Compiled and warmed on short copies, so the figures are the steady state.
  for (const { text } of adversarialCorpus(1_000)) for (const f of Object.values(ROUTINES)) f(text);
  const routines: Record<string, RoutineFigures> = {};
  const both = new Map<string, number>();
  for (const [name, f] of Object.entries(ROUTINES)) {
    const ms = corpus.map(({ text }) => time(() => f(text)));
    // The slowest few again, best of three: a garbage collection or a busy
    // neighbour is not the pattern's cost.
    const slowest = ms
      .map((_, i) => i)
      .sort((a, b) => ms[b] - ms[a])
      .slice(0, 8);
    for (const i of slowest)
      ms[i] = Math.min(
        ms[i],
        time(() => f(corpus[i].text)),
        time(() => f(corpus[i].text)),
      );
    const worst = ms.indexOf(Math.max(...ms));
    let calls = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < 200) {
      f(TYPICAL_MESSAGE);
      calls++;
    }
    routines[name] = {
      medianMs: Number(median(ms).toFixed(3)),
      maxMs: Number(ms[worst].toFixed(3)),
      worstInput: corpus[worst].name,
      typicalPerSecond: Math.round(calls / ((performance.now() - t0) / 1000)),
    };
    if (name === "parseDeliveryPhrase" || name === "stripDeliveryPhrases") {
      corpus.forEach(({ name: input }, i) => both.set(input, (both.get(input) ?? 0) + ms[i]));
    }
  }
  return {
    chars,
    inputs: corpus.length,
    routines,
    worstParseAndStripMs: Number(Math.max(...both.values()).toFixed(3)),
  };
}

/** One line per routine, for the console. */
export function formatTextBench(r: TextBench): string {
  const rows = Object.entries(r.routines).map(
    ([name, f]) =>
      `  ${name.padEnd(22)} median ${f.medianMs.toFixed(2).padStart(6)} ms  max ${f.maxMs.toFixed(2).padStart(6)} ms (${f.worstInput})  typical ${f.typicalPerSecond}/s`,
  );
  const met = r.worstParseAndStripMs < 20 ? "met" : "MISSED";
  return [
    `text patterns, ${r.inputs} adversarial inputs of ${r.chars} chars:`,
    ...rows,
    `  parse + strip, worst input: ${r.worstParseAndStripMs.toFixed(1)} ms (target < 20 ms: ${met})`,
  ].join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = textBench();
  console.log(JSON.stringify(r, null, 2));
  console.log(formatTextBench(r));
}
