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

/** The section whose pacing wait is over (kept in driverData between claims). */
const pacedFor = (task: StepContext["task"]) => (task.driverData as { pacedFor?: unknown } | null)?.pacedFor;

function sectionsOf(plan: unknown): string[] {
  return Array.isArray((plan as { sections?: unknown })?.sections) ? ((plan as { sections: string[] }).sections) : [];
}

/** A plan written as text (offline model, endpoints without JSON mode): the tolerant reading of research-plan.ts. */
export function parsePlan(text: string, n: number, lang: Lang = "en"): string[] {
  return readPlan(text, n, fallbackTitle(lang)).sections;
}

const fallbackTitle = (lang: Lang) => (i: number) => offlineText(lang, "researchSectionFallback", { index: i });

export function assembleBody(title: string, sections: { title: string; text: string }[], total: number, partial: boolean, lang: Lang = "en"): string {
  const head = partial
    ? `# ${title}\n\n_${offlineText(lang, "researchPartialNote", { done: sections.length, total })}_\n`
    : `# ${title}\n`;
  return [head, ...sections.map((s) => `## ${s.title}\n\n${s.text}`)].join("\n");
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

async function planStep(ctx: StepContext, steps: number): Promise<StepOutcome> {
  const lang = await reportLang(ctx.task);
  const { sections, requests } = await requestPlan(
    ctx.model,
    `${RESEARCH_PLAN_MARK} sections=${steps} lang=${lang}\nPlan a research report as exactly ${steps} section titles. Answer with only a JSON object {"sections": ["…"]} holding the ${steps} titles in order, without numbering or formatting. ${WRITE_IN[lang]}\nTopic:\n${frameUntrusted(ctx.task.prompt, "research request")}`,
    steps,
    { signal: ctx.signal, pad: fallbackTitle(lang) },
  );
  return {
    step: { index: 0, kind: "plan", input: { steps }, output: { sections, lang }, modelRequests: requests },
    count: { done: 1, total: steps + 1 },
    progress: offlineText(lang, steps === 1 ? "researchPlannedOne" : "researchPlanned", { n: steps, sections: sections.join(lang === "zh" ? "；" : "; ") }),
  };
}

async function sectionStep(ctx: StepContext, index: number, sections: string[], stepMs: number, lang: Lang): Promise<StepOutcome> {
  const total = sections.length;
  const sectionTitle = sections[index - 1];
  const updates = Array.isArray(ctx.task.pendingUpdates) ? (ctx.task.pendingUpdates as string[]) : [];
  // Pacing is a wait, not work: the slot goes back to the pool meanwhile.
  if (stepMs > 0 && pacedFor(ctx.task) !== index) return { defer: { ms: stepMs, driverState: { pacedFor: index } } };
  const result = await generateText({
    model: ctx.model,
    abortSignal: ctx.signal,
    maxRetries: 0,
    ...progressTool(ctx),
    prompt: [
      `${RESEARCH_STEP_MARK} section=${index}/${total} lang=${lang}`,
      `Write the section "${neutralizeUntrusted(sectionTitle)}" of a research report. ${WRITE_IN[lang]}`,
      ctx.reportProgress
        ? `While you work you may call ${RESEARCH_UPDATE_TOOL} with one short line for the user (what you are checking); it is not part of the report.`
        : "",
      `Topic:\n${frameUntrusted(ctx.task.prompt, "research request")}`,
      updates.length ? `Additional instructions from the user:\n${frameUntrusted(updates.join("\n"), "user update")}` : "",
    ]
      .filter(Boolean)
      .join("\n"),
  });
  // A model that calls the tool first writes the section in a later request; one that writes both at once, in the first.
  const text = result.steps.map((s) => s.text).join("");
  if (!text.trim()) throw new Error(`research step ${index}: the model wrote no section text`);
  const done = [
    ...ctx.steps
      .filter((s) => s.kind === "section")
      .map((s) => s.output as { title: string; text: string }),
    { title: sectionTitle, text: text.trim() },
  ];
  const halfway = Math.ceil(total / 2);
  const outcome: StepOutcome = {
    step: { index, kind: "section", input: { title: sectionTitle, updates }, output: { title: sectionTitle, text: text.trim() }, modelRequests: result.steps.length },
    progress: offlineText(lang, "researchDone", { index, total, section: sectionTitle }),
    consumedUpdates: updates.length,
    count: { done: index + 1, total: total + 1 },
  };
  if (index === total) {
    outcome.publish = { partial: false, content: assembleBody(ctx.task.title, done, total, false, lang) };
    outcome.finished = true;
  } else if (index === halfway) {
    outcome.publish = { partial: true, content: assembleBody(ctx.task.title, done, total, true, lang) };
  }
  return outcome;
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
        description: "Show the user one short progress line (what you are checking now). Not part of the report; at most a few per section.",
        inputSchema: z.object({ text: z.string().max(1000).describe("One short sentence, under 120 characters.") }),
        execute: async ({ text }) => ({ result: await report(text) }),
      }),
    },
    stopWhen: [stepCountIs(SECTION_MAX_REQUESTS), wroteText],
  };
}

export const researchDriver: Driver = {
  acceptsUpdates: true,

  // Native research runs in our own workers: the handle is local and nothing remote exists to compensate.
  async submit(task) {
    return { remoteRef: `research:${task.id}`, driverData: {} };
  },

  async step(ctx) {
    const { steps: total, stepMs } = researchSettings(ctx.task.options);
    const plan = ctx.steps.find((s) => s.index === 0);
    if (!plan) return planStep(ctx, total);
    const sections = sectionsOf(plan.output);
    const next = Math.max(0, ...ctx.steps.map((s) => s.index)) + 1;
    return sectionStep(ctx, next, sections, stepMs, langOfPlan(plan.output, ctx.task));
  },

  // Cooperative: the execution fence already stopped further steps; committed partials stay.
  async cancel() {
    return { status: "cancelled" };
  },
};
