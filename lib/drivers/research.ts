import { env } from "@/lib/config/env";
import { generateText } from "ai";
import type { Driver, StepContext, StepOutcome } from "./types";
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

export function parsePlan(text: string, n: number): string[] {
  const lines = text
    .split("\n")
    .map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, "").trim())
    .filter((l) => l.length > 0 && l.length < 200);
  const out = lines.slice(0, n);
  for (let i = out.length; i < n; i++) out.push(`Part ${i + 1}`);
  return out;
}

export function assembleBody(title: string, sections: { title: string; text: string }[], total: number, partial: boolean): string {
  const head = partial
    ? `# ${title}\n\n_Partial report: ${sections.length} of ${total} sections researched so far._\n`
    : `# ${title}\n`;
  return [head, ...sections.map((s) => `## ${s.title}\n\n${s.text}`)].join("\n");
}

async function planStep(ctx: StepContext, steps: number): Promise<StepOutcome> {
  const { text } = await generateText({
    model: ctx.model,
    abortSignal: ctx.signal,
    maxRetries: 0,
    prompt: `${RESEARCH_PLAN_MARK} sections=${steps}\nPlan a research report as exactly ${steps} section titles, one per line.\nTopic:\n${frameUntrusted(ctx.task.prompt, "research request")}`,
  });
  const sections = parsePlan(text, steps);
  return {
    step: { index: 0, kind: "plan", input: { steps }, output: { sections }, modelRequests: 1 },
    progress: `Planned ${steps} section${steps === 1 ? "" : "s"}: ${sections.join("; ")}`,
  };
}

async function sectionStep(ctx: StepContext, index: number, sections: string[], stepMs: number): Promise<StepOutcome> {
  const total = sections.length;
  const sectionTitle = sections[index - 1];
  const updates = Array.isArray(ctx.task.pendingUpdates) ? (ctx.task.pendingUpdates as string[]) : [];
  // Pacing is a wait, not work: the slot goes back to the pool meanwhile.
  if (stepMs > 0 && pacedFor(ctx.task) !== index) return { defer: { ms: stepMs, driverState: { pacedFor: index } } };
  const { text } = await generateText({
    model: ctx.model,
    abortSignal: ctx.signal,
    maxRetries: 0,
    prompt: [
      `${RESEARCH_STEP_MARK} section=${index}/${total}`,
      `Write the section "${neutralizeUntrusted(sectionTitle)}" of a research report.`,
      `Topic:\n${frameUntrusted(ctx.task.prompt, "research request")}`,
      updates.length ? `Additional instructions from the user:\n${frameUntrusted(updates.join("\n"), "user update")}` : "",
    ]
      .filter(Boolean)
      .join("\n"),
  });
  const done = [
    ...ctx.steps
      .filter((s) => s.kind === "section")
      .map((s) => s.output as { title: string; text: string }),
    { title: sectionTitle, text: text.trim() },
  ];
  const halfway = Math.ceil(total / 2);
  const outcome: StepOutcome = {
    step: { index, kind: "section", input: { title: sectionTitle, updates }, output: { title: sectionTitle, text: text.trim() }, modelRequests: 1 },
    progress: `Researched ${index}/${total}: ${sectionTitle}`,
    consumedUpdates: updates.length,
  };
  if (index === total) {
    outcome.publish = { partial: false, content: assembleBody(ctx.task.title, done, total, false) };
    outcome.finished = true;
  } else if (index === halfway) {
    outcome.publish = { partial: true, content: assembleBody(ctx.task.title, done, total, true) };
  }
  return outcome;
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
    return sectionStep(ctx, next, sections, stepMs);
  },

  // Cooperative: the execution fence already stopped further steps; committed partials stay.
  async cancel() {
    return { status: "cancelled" };
  },
};
