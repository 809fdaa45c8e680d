import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { createHash } from "node:crypto";
import type { Lang } from "@/lib/i18n/dictionaries";
import { joinSentences, offlineText, type OfflineMessageId } from "@/lib/i18n/offline";
import { readFrames } from "@/lib/text/frame";
import { TOOLS } from "../tool-names";
import type { ToolInputs } from "../tools";
import type {
  CancelTaskResult,
  CheckTaskResult,
  ListTasksResult,
  StartTaskResult,
  ToolCandidate,
  ToolError,
  ToolResults,
  UpdateTaskResult,
} from "../tool-results";
import { formatDue, isTerminal, quote, short, statusWords } from "./format";

const OUTCOME_WORDS: Record<string, OfflineMessageId> = {
  on_time: "outcomeOnTime",
  early: "outcomeEarly",
  missed: "outcomeMissed",
};
import { TRAILING_PUNCT } from "./intent";
import { isChinese } from "@/lib/i18n/detect";
import { readerLang } from "./prompt-text";
import { extractiveSection } from "./extractive";
import { topicKind, topicOf, type TopicKind } from "@/lib/drivers/research-topic";

/**
 * What the offline model says in words: to ordinary chat, in research reports,
 * and after a tool ran. Deterministic, so the same prompt always reads the same.
 */

function pick<T>(seed: string, options: readonly T[]): T {
  const n = createHash("sha256").update(seed).digest().readUInt32BE(0);
  return options[n % options.length];
}

const CHAT_OPENERS: readonly OfflineMessageId[] = ["chatOpenerGotIt", "chatOpenerUnderstood", "chatOpenerThanks"];

export function chatReply(userText: string): string {
  const lang: Lang = isChinese(userText) ? "zh" : "en";
  const quoted = userText.length > 120 ? `${userText.slice(0, 117)}…` : userText;
  return offlineText(lang, "chatReply", { opener: offlineText(lang, pick(userText, CHAT_OPENERS)), quoted });
}

/** Four sections per kind of topic, in reading order; a longer plan goes round again. */
const SECTIONS: Record<TopicKind, readonly OfflineMessageId[]> = {
  history: ["researchSectionOrigins", "researchSectionPeriods", "researchSectionPeople", "researchSectionLegacy"],
  decision: [
    "researchSectionQuestion",
    "researchSectionOptions",
    "researchSectionRisks",
    "researchSectionRecommendations",
  ],
  comparison: [
    "researchSectionCompared",
    "researchSectionDifferences",
    "researchSectionStrengths",
    "researchSectionSuits",
  ],
  market: ["researchSectionBackground", "researchSectionFacts", "researchSectionPlayers", "researchSectionTrends"],
  technology: ["researchSectionWhatItIs", "researchSectionHowItWorks", "researchSectionUses", "researchSectionLimits"],
  general: [
    "researchSectionBackground",
    "researchSectionFacts",
    "researchSectionRecent",
    "researchSectionOpenQuestions",
  ],
};

/** The report language the research driver names on its mark line (`lang=zh`), read from the first line only. */
function markedLang(text: string): Lang | null {
  const m = /^\[herald:research-(?:plan|step)\][^\n]* lang=(en|zh)\b/.exec(text);
  return m ? (m[1] as Lang) : null;
}

/**
 * Research plans and sections, in the language the driver asks for (else the
 * topic's). A plan's sections fit the kind of topic; a section quotes the
 * pages framed for it (./extractive.ts), leaning towards what the user asked
 * for while it ran. Neither the request nor an instruction is ever repeated in
 * the text: an instruction shows in which sentences are chosen.
 */
export function researchText(text: string): string | null {
  const plan = /^\[herald:research-plan\] sections=(\d+)/.exec(text);
  if (!plan && !/^\[herald:research-step\]/.test(text)) return null;
  const frames = readFrames(text);
  const request = (frames.find((f) => f.label === "research request") ?? frames[0])?.body.trim() ?? "";
  const lang: Lang = markedLang(text) ?? (isChinese(request) ? "zh" : "en");
  if (plan) {
    const n = Number(plan[1]);
    const kind = SECTIONS[topicKind(topicOf(request))];
    return Array.from({ length: n }, (_, i) => {
      const section = offlineText(lang, kind[i % kind.length]);
      const round = Math.floor(i / kind.length) + 1;
      return `${i + 1}. ${round > 1 ? offlineText(lang, "researchSectionRepeat", { section, round }) : section}`;
    }).join("\n");
  }
  const step = /^\[herald:research-step\] section=(\d+)\/(\d+)/.exec(text);
  if (step) {
    const section =
      /Write the section "([^"]*)"/.exec(text)?.[1] ?? offlineText(lang, "researchSectionFallback", { index: step[1] });
    const focus = frames
      .filter((f) => f.label === "user update")
      .map((f) => f.body)
      .join("\n");
    const read = extractiveSection(frames, section, topicOf(request), lang, focus);
    if (read === "nothing_new") return offlineText(lang, "researchStepNothingNew");
    return read ?? offlineText(lang, "researchStepNoSources");
  }
  return null;
}

/** The progress line the offline model proposes for a research section (send_research_update). */
export function researchUpdate(text: string): string | null {
  const step = /^\[herald:research-step\] section=(\d+)\/(\d+)/.exec(text);
  if (!step) return null;
  const request = readFrames(text).find((f) => f.label === "research request")?.body ?? "";
  const lang: Lang = markedLang(text) ?? (isChinese(request) ? "zh" : "en");
  const section =
    /Write the section "([^"]*)"/.exec(text)?.[1] ?? offlineText(lang, "researchSectionFallback", { index: step[1] });
  return offlineText(lang, "researchUpdate", { section });
}

// ------------------------------------------------------- replies to results ---

/** A tool's arguments as the model sent them: whatever the call carried (the SDK validated them before running it). */
type Input<N extends keyof ToolInputs> = Partial<ToolInputs[N]>;

function candidatesText(cands: readonly ToolCandidate[], lang: Lang, verb: OfflineMessageId): string {
  const lines = cands.map((c) =>
    offlineText(lang, "candidateLine", { title: quote(lang, c.title), id: short(c.id, 60) }),
  );
  return [offlineText(lang, "candidatesHead", { verb: offlineText(lang, verb) }), ...lines].join("\n");
}

const isAmbiguous = (r: object): r is { candidates: ToolCandidate[] } =>
  "candidates" in r && Array.isArray(r.candidates) && r.candidates.length > 0;

function noMatch(task: string | null | undefined, lang: Lang, activeOnly: boolean): string {
  const named = typeof task === "string" && task.trim();
  if (named) return offlineText(lang, activeOnly ? "noMatchNamedActive" : "noMatchNamed", { task: quote(lang, task) });
  return offlineText(lang, activeOnly ? "noMatchActive" : "noMatch");
}

function replyStart(r: StartTaskResult, lang: Lang): string {
  if ("error" in r) return offlineText(lang, "startError", { error: short(r.error) });
  const d = r.delivery;
  const parts = [offlineText(lang, d?.dueAt ? "startAckTimed" : "startAck", { title: quote(lang, r.title) })];
  if (d?.dueAt) {
    parts.push(
      offlineText(lang, d.mode === "at" ? "startDueAt" : "startDueBy", { due: formatDue(d.dueAt, lang, d.timeZone) }),
    );
    if (d.reportIfUnfinished) parts.push(offlineText(lang, "startReportUnfinished"));
  }
  return joinSentences(lang, parts);
}

function replyList(r: ListTasksResult, input: Input<typeof TOOLS.list>, lang: Lang): string {
  if ("error" in r) return offlineText(lang, "listError", { error: short(r.error) });
  const tasks = r.tasks ?? [];
  if (tasks.length === 0) return offlineText(lang, input.activeOnly ? "listEmptyActive" : "listEmpty");
  // Ids only help when titles collide and the user has to pick one.
  const seen = new Map<string, number>();
  for (const t of tasks) seen.set(String(t.title).toLowerCase(), (seen.get(String(t.title).toLowerCase()) ?? 0) + 1);
  const lines = tasks.map((t) => {
    const vars = { title: quote(lang, t.title), status: statusWords(t, lang) };
    if ((seen.get(String(t.title).toLowerCase()) ?? 0) > 1)
      return offlineText(lang, "listLineWithId", { ...vars, id: short(t.id, 60) });
    return offlineText(lang, "listLine", vars);
  });
  return [offlineText(lang, "listHead", { count: tasks.length }), ...lines].join("\n");
}

function replyCancel(r: CancelTaskResult, input: Input<typeof TOOLS.cancel>, lang: Lang): string {
  if ("error" in r) return offlineText(lang, "cancelError", { error: short(r.error) });
  if (isAmbiguous(r)) return candidatesText(r.candidates, lang, "verbStop");
  if (r.cancelled && r.task) return offlineText(lang, "cancelOk", { title: quote(lang, r.task.title) });
  return noMatch(input.task, lang, true);
}

function replyCheck(r: CheckTaskResult, input: Input<typeof TOOLS.check>, lang: Lang): string {
  if ("error" in r) return offlineText(lang, "checkError", { error: short(r.error) });
  if (isAmbiguous(r)) return candidatesText(r.candidates, lang, "verbCheck");
  if (!r.found || !r.task) {
    const others = ("tasks" in r ? r.tasks : undefined) ?? [];
    const base = noMatch(input.task, lang, false);
    if (others.length === 0) return base;
    const titles = others.map((t) => quote(lang, t.title)).join(offlineText(lang, "listSeparator"));
    return offlineText(lang, "checkOthers", { noMatch: base, titles });
  }
  const t = r.task;
  const pub = r.latestPublication;
  const d = r.delivery;
  const parts = [offlineText(lang, "checkStatus", { title: quote(lang, t.title), status: statusWords(t, lang) })];
  if (t.error) parts.push(offlineText(lang, "checkReason", { error: short(t.error) }));
  if (r.progress?.text) parts.push(offlineText(lang, "checkProgress", { text: short(r.progress.text) }));
  parts.push(
    pub
      ? pub.partial
        ? offlineText(lang, "checkPartial", { version: String(pub.version) })
        : offlineText(lang, "checkFinal")
      : offlineText(lang, "checkUnpublished"),
  );
  // The promise in words: what will happen while it runs, how it went once judged; a cancel or failure says it alone.
  if (d?.dueAt) {
    const due = formatDue(d.dueAt, lang, d.timeZone);
    const outcome =
      d.outcome && Object.hasOwn(OUTCOME_WORDS, d.outcome) ? offlineText(lang, OUTCOME_WORDS[d.outcome]) : null;
    if (outcome) parts.push(offlineText(lang, "checkDueOutcome", { due, outcome }));
    else if (!isTerminal(t.status))
      parts.push(offlineText(lang, d.mode === "at" ? "checkDueAt" : "checkDueBy", { due }));
  }
  if (r.inputRequest) parts.push(offlineText(lang, "checkInput"));
  return joinSentences(lang, parts);
}

function replyUpdate(r: UpdateTaskResult, input: Input<typeof TOOLS.update>, lang: Lang): string {
  if ("error" in r) return offlineText(lang, "updateError", { error: short(r.error) });
  if (isAmbiguous(r)) return candidatesText(r.candidates, lang, "verbUpdate");
  if (r.updated) {
    const instruction = short(r.instruction ?? input.message, 300).replace(TRAILING_PUNCT, "");
    return offlineText(lang, "updateOk", { instruction });
  }
  return noMatch(input.task, lang, true);
}

/**
 * A tool's result as the AI SDK hands it back: the object the tool returned
 * (lib/agent/tools.ts, typed there per tool), or a ToolError when the call
 * itself failed or was denied.
 */
function toolOutputValue(output: unknown): object {
  const o = output as { type?: string; value?: unknown; reason?: string } | undefined;
  if (!o || typeof o !== "object") return {};
  if (o.type === "json" && o.value && typeof o.value === "object") return o.value;
  if (o.type === "text" && typeof o.value === "string") {
    try {
      const parsed: unknown = JSON.parse(o.value);
      return parsed && typeof parsed === "object" ? parsed : {};
    } catch {
      return { message: o.value };
    }
  }
  if (o.type === "error-text") return { error: String(o.value ?? "error") } satisfies ToolError;
  if (o.type === "error-json") return { error: JSON.stringify(o.value) } satisfies ToolError;
  if (o.type === "execution-denied") return { error: o.reason ?? "denied" } satisfies ToolError;
  return {};
}

function parseInput(input: unknown): object {
  if (typeof input === "string") {
    try {
      const parsed: unknown = JSON.parse(input);
      return parsed && typeof parsed === "object" ? parsed : {};
    } catch {
      return {};
    }
  }
  return input && typeof input === "object" ? input : {};
}

/** A short reply summarising the last tool result, in the language the user last wrote. */
export function toolResultReply(prompt: LanguageModelV3Prompt): string {
  const last = prompt[prompt.length - 1];
  const results = last.role === "tool" ? last.content.filter((p) => p.type === "tool-result") : [];
  const lang = readerLang(prompt);
  if (results.length === 0) return offlineText(lang, "done");
  const result = results[results.length - 1];
  let input: object = {};
  for (const m of prompt) {
    if (m.role !== "assistant") continue;
    for (const p of m.content)
      if (p.type === "tool-call" && p.toolCallId === result.toolCallId) input = parseInput(p.input);
  }
  // Our own tools wrote these (or the SDK's error forms, which are ToolErrors): the name says which type.
  const r = toolOutputValue(result.output);
  switch (result.toolName) {
    case TOOLS.start:
      return replyStart(r as ToolResults[typeof TOOLS.start], lang);
    case TOOLS.list:
      return replyList(r as ToolResults[typeof TOOLS.list], input as Input<typeof TOOLS.list>, lang);
    case TOOLS.cancel:
      return replyCancel(r as ToolResults[typeof TOOLS.cancel], input as Input<typeof TOOLS.cancel>, lang);
    case TOOLS.check:
      return replyCheck(r as ToolResults[typeof TOOLS.check], input as Input<typeof TOOLS.check>, lang);
    case TOOLS.update:
      return replyUpdate(r as ToolResults[typeof TOOLS.update], input as Input<typeof TOOLS.update>, lang);
    default:
      return "error" in r && r.error ? short(r.error) : offlineText(lang, "done");
  }
}
