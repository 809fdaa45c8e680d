import { env } from "@/lib/config/env";
import { generateText, stepCountIs, tool, type StopCondition, type ToolSet } from "ai";
import { z } from "zod";
import { langOfText } from "@/lib/i18n/detect";
import type { Lang } from "@/lib/i18n/dictionaries";
import { getDb } from "@/lib/db/client";
import type { Task } from "@/lib/db/generated/client.ts";
import { offlineText } from "@/lib/i18n/offline";
import type { Driver, StepContext, StepOutcome } from "./types";
import { readPlan, requestPlan } from "./research-plan";
import { frameUntrusted, neutralizeUntrusted } from "@/lib/text/frame";
import { SIMULATE_MAX_STEP_MS, SIMULATE_MAX_STEPS } from "@/lib/contract/schemas";
import { simulateAllowed } from "@/lib/limits/config";
import { log } from "@/lib/util/log";
import { readJsonColumn } from "@/lib/util/json-column";
import { checkCitations, citedNumbers, firstSentence, sourcesSection, type CitedSource } from "./research-cite";
import { sourcesPrompt, type PromptPage } from "./research-prompt";
import { gatherSources, rereadable, SECTION_MAX_SOURCES, termsOf, type GatherResult } from "./research-read";
import { focusOf, reportTitle, requestForWriting, topicOf } from "./research-topic";

/**
 * Native research: step 0 plans N sections, steps 1..N research one section
 * each, a partial body is published once half the sections are done and the
 * final body with the last one. Every step is one checkpoint (TaskStep), so a
 * crash resumes at the first step without a row.
 */
export const RESEARCH_PLAN_MARK = "[herald:research-plan]";
export const RESEARCH_STEP_MARK = "[herald:research-step]";
/** The tool a research step's model may call to propose a short progress line (seed: timed delivery). */
export const RESEARCH_UPDATE_TOOL = "send_research_update";
/** Model requests one section may take: the text, plus a round trip per progress line it proposes. */
const SECTION_MAX_REQUESTS = 3;

interface Simulate {
  steps?: number;
  stepMs?: number;
}

/** Pacing of native research; `options.simulate` counts only where the operator allows it. */
export function researchSettings(options: unknown): { steps: number; stepMs: number } {
  const given = simulateAllowed() ? (options as { simulate?: Simulate } | null)?.simulate : undefined;
  const sim = (given ?? {}) as Simulate;
  const steps = Math.max(1, Math.min(SIMULATE_MAX_STEPS, Math.round(sim.steps ?? env("HERALD_RESEARCH_STEPS"))));
  const stepMs = Math.max(0, Math.min(SIMULATE_MAX_STEP_MS, sim.stepMs ?? env("HERALD_RESEARCH_STEP_MS")));
  return { steps, stepMs };
}

/** task.driverData of a research task: bookkeeping kept between claims (lib/drivers/poll-ms.ts keeps its own). */
const researchDataSchema = z.object({
  /** The section whose pacing wait is over. */
  pacedFor: z.number().int().optional(),
  /** Searches made so far (lib/tasks/sources.ts counts them before each one). */
  searches: z.number().optional(),
  /** How the last search went. */
  search: z.enum(["ok", "off", "unavailable", "budget"]).optional() satisfies z.ZodType<SearchState | undefined>,
});

const researchDataOf = (task: Task) =>
  readJsonColumn("task.driverData (research)", researchDataSchema, task.driverData, {}, task.id);

interface PlanOutput {
  sections: string[];
  queries?: string[];
}

function planOf(plan: unknown): PlanOutput {
  const p = plan as { sections?: unknown; queries?: unknown } | null;
  const sections = Array.isArray(p?.sections) ? (p.sections as string[]) : [];
  const queries =
    Array.isArray(p?.queries) && p.queries.every((q) => typeof q === "string") ? (p.queries as string[]) : undefined;
  return { sections, queries };
}

/** A plan written as text (offline model, endpoints without JSON mode): the tolerant reading of research-plan.ts. */
export function parsePlan(text: string, n: number, lang: Lang = "en"): string[] {
  return readPlan(text, n, fallbackTitle(lang)).sections;
}

const fallbackTitle = (lang: Lang) => (i: number) => offlineText(lang, "researchSectionFallback", { index: i });

/** Why a report has no sources, as the last research step saw it (kept in driverData). */
export type SearchState = GatherResult["status"];

export interface ReportSources {
  /** Every page the task read, numbered. */
  read: readonly CitedSource[];
  /** How the last search went: words the report when nothing was read. */
  search?: SearchState;
}

/**
 * The report: title, (partial note,) `## Summary` with each section's opening
 * sentence, the sections, then `## Sources`. The final body lists every page
 * the task read; a partial body the ones it cites. A report that read nothing
 * says so in its summary and has no Sources section: nothing is invented.
 */
export function assembleBody(
  title: string,
  sections: { title: string; text: string }[],
  total: number,
  partial: boolean,
  lang: Lang = "en",
  sources: ReportSources = { read: [] },
): string {
  const head = partial
    ? `# ${title}\n\n_${offlineText(lang, "researchPartialNote", { done: sections.length, total })}_`
    : `# ${title}`;
  const note = sources.read.length === 0 ? `_${offlineText(lang, noSourcesNote(sources.search))}_` : "";
  const summary = summaryLines(sections, Boolean(note)).map((line) => `- ${line}`);
  const summaryBlock = `## ${offlineText(lang, "researchSummaryHeading")}\n\n${[note, summary.join("\n")].filter(Boolean).join("\n\n")}`;
  const body = sections.map((s) => `## ${s.title}\n\n${s.text}`);
  const cited = new Set(sections.flatMap((s) => citedNumbers(s.text)));
  const listed = partial ? sources.read.filter((s) => cited.has(s.n)) : sources.read;
  const tail = sourcesSection(listed, lang);
  return [head, summaryBlock, ...body, ...(tail ? [tail] : [])].join("\n\n");
}

/**
 * One line per section, its opening sentence. A sentence that opens two or
 * more sections is boilerplate (a model's "no source was read"), not a
 * finding: it is left out, and when nothing else is left the summary keeps one
 * of them, or only its note when it has one.
 */
function summaryLines(sections: readonly { text: string }[], hasNote: boolean): string[] {
  const firsts = sections.map((s) => firstSentence(s.text.replace(/^#{1,6}\s+/gm, ""))).filter(Boolean);
  const seen = new Map<string, number>();
  for (const line of firsts) seen.set(line, (seen.get(line) ?? 0) + 1);
  const distinct = firsts.filter((line) => seen.get(line) === 1);
  return distinct.length > 0 || hasNote ? distinct : firsts.slice(0, 1);
}

function noSourcesNote(search: SearchState | undefined) {
  if (search === "off") return "researchNoSourcesOff" as const;
  if (search === "unavailable") return "researchNoSourcesUnavailable" as const;
  return "researchNoSourcesFound" as const;
}

/**
 * The language the report is written in: that of the user's own message that
 * asked for it (the conversation's language), else of the request. A model may
 * restate a Chinese request as an English topic; the report still answers in
 * Chinese. Read once, at planning, and kept in the plan's checkpoint.
 */
async function reportLang(task: Task): Promise<Lang> {
  if (task.originMessageId) {
    const origin = await getDb().message.findFirst({
      where: { id: task.originMessageId, ownerId: task.ownerId },
      select: { content: true },
    });
    if (origin?.content.trim()) return langOfText(origin.content);
  }
  return langOfText(task.prompt);
}

/** Said to the model in so many words: "the language of the request" is ambiguous once the request mixes languages. */
const WRITE_IN: Record<Lang, string> = { en: "Write in English.", zh: "Write in Simplified Chinese (简体中文)." };

function langOfPlan(plan: unknown, task: Task): Lang {
  const lang = (plan as { lang?: unknown } | null)?.lang;
  return lang === "zh" || lang === "en" ? lang : langOfText(task.prompt);
}

/**
 * What every writer is told about the report's shape: the host adds the title,
 * the summary and the sources, so sections are the topic's own; the request
 * is the brief, never text to repeat.
 */
const PLAN_RULES =
  "Choose sections that fit this particular topic and what the user asked about it: a history gets its periods, people and legacy; a comparison its criteria; a how-it-works topic its mechanism and uses; only a decision gets options, risks and a recommendation. Do not fall back on a fixed template, and add no summary, introduction or conclusion section: the report opens with its own summary and ends with its sources. Titles are short (2 to 6 words), specific to the topic, and never restate the request.";
const SECTION_RULES =
  "Write only this section's text: no heading, no title, no summary of the whole report. Never restate or quote the request, and never mention when or how the user will be told (the host delivers the report); begin with substance.";
const STEERING_RULES =
  "The user sent these instructions while the research ran. Apply each one where it concerns this section's subject, through what you choose to cover and emphasise (an instruction about another part of the topic changes nothing here); never quote them or mention that they were sent.";

/** Instructions the user sent while the task ran: those earlier sections consumed, then the ones waiting now. */
function instructionsOf(ctx: StepContext): { all: string[]; pending: string[] } {
  const pending = ctx.pendingUpdates;
  const earlier = ctx.steps
    .filter((s) => s.kind === "section")
    .flatMap((s) => {
      const u = (s.input as { updates?: unknown } | null)?.updates;
      return Array.isArray(u) ? u.filter((x): x is string => typeof x === "string") : [];
    });
  return { all: [...earlier, ...pending], pending };
}

async function planStep(ctx: StepContext, steps: number): Promise<StepOutcome> {
  const lang = await reportLang(ctx.task);
  const { pending } = instructionsOf(ctx);
  const { sections, queries, requests } = await requestPlan(
    ctx.model,
    [
      `${RESEARCH_PLAN_MARK} sections=${steps} lang=${lang}`,
      `Plan a research report on the topic below as exactly ${steps} section titles, and for each section one web search query that would find pages to write it from. ${PLAN_RULES} Answer with only a JSON object {"sections": ["…"], "queries": ["…"]} holding the ${steps} titles in order, without numbering or formatting, and the ${steps} queries in the same order. ${WRITE_IN[lang]}`,
      `Topic:\n${frameUntrusted(requestForWriting(ctx.task.prompt), "research request")}`,
      pending.length ? `Instructions the user added since:\n${frameUntrusted(pending.join("\n"), "user update")}` : "",
    ]
      .filter(Boolean)
      .join("\n"),
    steps,
    { signal: ctx.signal, pad: fallbackTitle(lang) },
  );
  return {
    step: {
      index: 0,
      kind: "plan",
      input: { steps },
      output: { sections, lang, ...(queries ? { queries } : {}) },
      modelRequests: requests,
    },
    count: { done: 1, total: steps + 1 },
    progress: offlineText(lang, steps === 1 ? "researchPlannedOne" : "researchPlanned", {
      n: steps,
      sections: sections.join(lang === "zh" ? "；" : "; "),
    }),
  };
}

/** How many searches the task made so far and how the last one went (driverData, written with each step's commit). */
function searchBook(task: StepContext["task"]): { searches: number; search?: SearchState } {
  const { searches = 0, search } = researchDataOf(task);
  return { searches, search };
}

/** What a section step keeps in its checkpoint. */
interface SectionOutput {
  title: string;
  text: string;
  /** Numbers of the pages this step read (task_source.n). */
  sources?: number[];
  searches?: number;
}

async function sectionStep(
  ctx: StepContext,
  index: number,
  plan: PlanOutput,
  stepMs: number,
  lang: Lang,
): Promise<StepOutcome> {
  const sections = plan.sections;
  const total = sections.length;
  const sectionTitle = sections[index - 1];
  const { all: instructions, pending: updates } = instructionsOf(ctx);
  // Pacing is a wait, not work: the slot goes back to the pool meanwhile.
  if (stepMs > 0 && researchDataOf(ctx.task).pacedFor !== index)
    return { defer: { ms: stepMs, driverState: { pacedFor: index } } };

  const known = ctx.sources ?? [];
  const topic = topicOf(ctx.task.prompt);
  const planned = plan.queries?.[index - 1]?.trim();
  // What the user steered towards narrows this section's first search: the plan's query predates it.
  const focus = [...new Set(instructions.map(focusOf).filter(Boolean))].join(" ");
  const primary = planned || (index === 1 ? topic : `${topic} ${sectionTitle}`);
  const queries = [
    ...new Set([focus ? `${primary} ${focus}` : primary, topic].map((q) => q.slice(0, 200).trim()).filter(Boolean)),
  ];
  const sectionTerms = termsOf(`${sectionTitle} ${topic} ${focus}`);
  const book = searchBook(ctx.task);
  const announce = ctx.announce;
  const gathered = await gatherSources({
    queries,
    terms: sectionTerms,
    known,
    searchesSoFar: book.searches,
    sectionsLeft: total - index + 1,
    accountPagesLeft: ctx.accountPagesLeft,
    countSearch: ctx.countSearch,
    signal: ctx.signal,
    announce: announce
      ? (kind, detail) =>
          announce(
            offlineText(lang, kind === "search" ? "researchSearching" : "researchReading", {
              query: detail.slice(0, 120),
              sites: detail.slice(0, 200),
            }),
          )
      : undefined,
  });
  let nextN = Math.max(0, ...known.map((s) => s.n)) + 1;
  const fresh = gathered.pages.map((p) => ({ ...p, n: nextN++ }));
  const read: CitedSource[] = [...known, ...fresh];
  // A search that found little new (a narrow topic, a second section on the same pages): write from what fits of the earlier pages too.
  const again = fresh.length >= 2 ? [] : rereadable(known, sectionTerms, SECTION_MAX_SOURCES - fresh.length);

  const { text, requests } = await writeSection(ctx, { index, sections, lang, instructions, fresh, again, read });
  const searches = book.searches + gathered.searches;
  // The last search's outcome words a report without sources; a step that made none keeps the earlier one.
  const search: SearchState | undefined =
    gathered.searches > 0 || gathered.status === "off" ? gathered.status : book.search;
  const output: SectionOutput = {
    title: sectionTitle,
    text,
    sources: fresh.map((p) => p.n),
    searches: gathered.searches,
  };
  const done = [
    ...ctx.steps.filter((s) => s.kind === "section").map((s) => s.output as unknown as SectionOutput),
    { title: sectionTitle, text },
  ];
  const halfway = Math.ceil(total / 2);
  const outcome: StepOutcome = {
    step: {
      index,
      kind: "section",
      input: { title: sectionTitle, updates, queries },
      output,
      modelRequests: requests,
    },
    progress:
      read.length === 0
        ? offlineText(lang, "researchDone", { index, total, section: sectionTitle })
        : offlineText(lang, read.length === 1 ? "researchDoneSource" : "researchDoneSources", {
            index,
            total,
            section: sectionTitle,
            count: read.length,
          }),
    consumedUpdates: updates.length,
    count: { done: index + 1, total: total + 1 },
    sources: fresh,
    driverState: { searches, sources: read.length, ...(search ? { search } : {}) },
  };
  const report: ReportSources = { read, search };
  const title = reportTitle(ctx.task.title, ctx.task.prompt);
  if (index === total) {
    outcome.publish = { partial: false, content: assembleBody(title, done, total, false, lang, report) };
    outcome.finished = true;
  } else if (index === halfway) {
    outcome.publish = { partial: true, content: assembleBody(title, done, total, true, lang, report) };
  }
  return outcome;
}

/** The section's text from the model, its citations checked against the pages this task read. */
async function writeSection(
  ctx: StepContext,
  s: {
    index: number;
    sections: readonly string[];
    lang: Lang;
    instructions: readonly string[];
    fresh: readonly PromptPage[];
    again: readonly PromptPage[];
    read: readonly CitedSource[];
  },
): Promise<{ text: string; requests: number }> {
  const total = s.sections.length;
  const result = await generateText({
    model: ctx.model,
    abortSignal: ctx.signal,
    maxRetries: 0,
    ...progressTool(ctx),
    prompt: [
      `${RESEARCH_STEP_MARK} section=${s.index}/${total} lang=${s.lang}`,
      `Write the section "${neutralizeUntrusted(s.sections[s.index - 1])}" of a research report on the topic below. ${WRITE_IN[s.lang]} ${SECTION_RULES}`,
      total > 1
        ? `The report's sections, in order: ${s.sections.map((t) => `"${neutralizeUntrusted(t)}"`).join(", ")}. Write this one's part only.`
        : "",
      ctx.reportProgress
        ? `While you work you may call ${RESEARCH_UPDATE_TOOL} with one short line for the user (what you are checking); it is not part of the report.`
        : "",
      `Topic:\n${frameUntrusted(requestForWriting(ctx.task.prompt), "research request")}`,
      s.instructions.length ? `${STEERING_RULES}\n${frameUntrusted(s.instructions.join("\n"), "user update")}` : "",
      sourcesPrompt(s.fresh, s.again),
    ]
      .filter(Boolean)
      .join("\n"),
  });
  // A model that calls the tool first writes the section in a later request; one that writes both at once, in the first.
  const raw = result.steps.map((step) => step.text).join("");
  if (!raw.trim()) throw new Error(`research step ${s.index}: the model wrote no section text`);
  // The host decides which numbers stand: only pages this task read.
  const checked = checkCitations(raw.trim(), new Set(s.read.map((p) => p.n)));
  if (checked.removed > 0)
    log("research").info({ taskId: ctx.task.id, removed: checked.removed }, "citations naming no source removed");
  return { text: checked.text.trim(), requests: result.steps.length };
}

/**
 * The send_research_update tool, when the host offered a way to show progress.
 * The step ends as soon as a request carries section text, so a model that
 * writes the line and the text together costs one request, and one that keeps
 * calling the tool stops at SECTION_MAX_REQUESTS.
 */
function progressTool(ctx: StepContext): { tools?: ToolSet; stopWhen?: StopCondition<ToolSet>[] } {
  const report = ctx.reportProgress;
  if (!report) return {};
  const wroteText: StopCondition<ToolSet> = ({ steps }) => (steps.at(-1)?.text.trim().length ?? 0) > 0;
  return {
    tools: {
      [RESEARCH_UPDATE_TOOL]: tool({
        description:
          "Show the user one short progress line (what you are checking now). Not part of the report; at most a few per section.",
        inputSchema: z.object({ text: z.string().max(1000).describe("One short sentence, under 120 characters.") }),
        execute: async ({ text }) => ({ result: await report(text) }),
      }),
    },
    stopWhen: [stepCountIs(SECTION_MAX_REQUESTS), wroteText],
  };
}

export const researchDriver: Driver = {
  acceptsUpdates: true,
  readsSources: true,

  // Native research runs in our own workers: the handle is local and nothing remote exists to compensate.
  async submit(task) {
    return { remoteRef: `research:${task.id}`, driverData: {} };
  },

  async step(ctx) {
    const { steps: total, stepMs } = researchSettings(ctx.task.options);
    const plan = ctx.steps.find((s) => s.index === 0);
    if (!plan) return planStep(ctx, total);
    const next = Math.max(0, ...ctx.steps.map((s) => s.index)) + 1;
    return sectionStep(ctx, next, planOf(plan.output), stepMs, langOfPlan(plan.output, ctx.task));
  },

  // Cooperative: the execution fence already stopped further steps; committed partials stay.
  async cancel() {
    return { status: "cancelled" };
  },
};
