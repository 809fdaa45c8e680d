import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LanguageModelV3, LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { getDb } from "@/lib/db/client";
import { createOfflineModel } from "@/lib/agent/offline-model";
import type { TaskStep } from "@/lib/db/generated/client.ts";
import { readFrames } from "@/lib/text/frame";
import { createConversationFor, signUp } from "@/tests/helpers";
import { peerEnv, startResearchPeer, type PeerPage, type ResearchPeer } from "@/tests/research-peer";
import type { KnownSource } from "./research-read";
import { researchDriver } from "./research";
import type { StepOutcome } from "./types";

/**
 * The report as a reader gets it, for one history topic asked with a delivery
 * phrase, in English and in Chinese: titled by the topic, opening with its
 * summary, sections a history fits (never the risks/options/recommendations
 * template), the request and its delivery phrase nowhere in the body, and an
 * instruction sent while it ran changing what a later section says without
 * being pasted into it. The offline model writes; the prompts it was sent are
 * what a real model would read.
 */

const PAGES: PeerPage[] = [
  {
    path: "/print/press",
    title: "Gutenberg and the printing press in Europe",
    lang: "en",
    paragraphs: [
      "Johannes Gutenberg built a printing press with movable metal type in Mainz around 1440.",
      "The Gutenberg Bible of about 1455 was the first major book printed in Europe with movable type.",
      "By 1500 printing presses in Europe had produced more than twenty million volumes.",
    ],
  },
  {
    path: "/print/spread",
    title: "How printing spread across Europe",
    lang: "en",
    paragraphs: [
      "Printing spread from Mainz to more than 250 European cities by 1500.",
      "Venice became the leading centre of printing in Europe by the end of the fifteenth century.",
      "Block books were printed from carved wooden blocks in the Low Countries before Gutenberg.",
    ],
  },
  {
    path: "/print/zh-press",
    title: "欧洲印刷术的历史",
    lang: "zh",
    paragraphs: [
      "欧洲印刷术的历史始于约1440年古登堡在美因茨制造的金属活字印刷机。",
      "约1455年的古登堡圣经是欧洲第一部用活字印刷的重要书籍。",
      "到1500年，欧洲印刷术已传到两百五十多座城市。",
      "欧洲印刷术的历史上，威尼斯在十五世纪末成为欧洲的印刷中心。",
      "欧洲印刷术的历史表明，印刷使欧洲的书籍价格大幅下降。",
      "在古登堡之前，低地国家已经用雕刻的木版印刷木版书。",
    ],
  },
];

let peer: ResearchPeer;
const saved = { ...process.env };
beforeAll(async () => {
  peer = await startResearchPeer({ pages: PAGES });
  Object.assign(process.env, peerEnv(peer), { HERALD_RESEARCH_MAX_SOURCES: "4" });
});
afterAll(async () => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  await peer?.close();
});

function recordingModel(prompts: string[]): LanguageModelV3 {
  const model = createOfflineModel();
  return {
    ...model,
    doGenerate: (options: LanguageModelV3CallOptions) => {
      prompts.push((options.prompt[0].content as { type: string; text: string }[]).map((p) => p.text).join(""));
      return model.doGenerate(options);
    },
  };
}

const asStep = (taskId: string, o: StepOutcome): TaskStep => ({
  id: `s${o.step!.index}`,
  taskId,
  index: o.step!.index,
  kind: o.step!.kind,
  input: o.step!.input as never,
  output: o.step!.output as never,
  modelRequests: o.step!.modelRequests,
  inputTokens: 0,
  outputTokens: 0,
  createdAt: new Date(),
});

/**
 * Runs a whole two-section task the way the runtime does: each step sees the
 * steps and pages before it; `steer` arrives after the first section, and the
 * runtime drops it from pendingUpdates once a step consumed it.
 */
async function research(prompt: string, steer?: string) {
  const user = await signUp("Shape");
  const conversationId = await createConversationFor(user);
  // The title a model may pass on: the request as it came.
  const task = await getDb().task.create({
    data: {
      ownerId: user.id,
      conversationId,
      title: prompt,
      prompt,
      options: { simulate: { steps: 2, stepMs: 0 } },
      status: "running",
      nextRunAt: new Date(Date.now() + 86_400_000),
    },
  });
  const prompts: string[] = [];
  const steps: TaskStep[] = [];
  const sources: KnownSource[] = [];
  const outcomes: StepOutcome[] = [];
  for (let i = 0; i < 3; i++) {
    const pendingUpdates = i === 2 && steer ? [steer] : [];
    const o = await researchDriver.step({
      task,
      pendingUpdates,
      steps,
      sources,
      model: recordingModel(prompts),
      signal: new AbortController().signal,
    });
    outcomes.push(o);
    steps.push(asStep(task.id, o));
    for (const p of o.sources ?? [])
      sources.push({ n: p.n, url: p.url, finalUrl: p.finalUrl, title: p.title, site: p.site, text: p.text });
  }
  const last = outcomes.at(-1)!;
  expect(last.finished).toBe(true);
  const sections = steps.filter((s) => s.kind === "section").map((s) => s.output as { title: string; text: string });
  return { body: last.publish!.content, sections, prompts };
}

/** Everything below the title line. */
const belowTitle = (body: string) => body.slice(body.indexOf("\n"));

describe("a report with a shape", () => {
  it("English: titled by the topic, summary first, history sections, no delivery phrase, the instruction worked into the later section", async () => {
    const request = "Research the history of printing in Europe and tell me in 2 minutes";
    const plain = await research(request);
    const steered = await research(request, "Focus on the period before Gutenberg..");

    for (const { body } of [plain, steered]) {
      expect(body).toMatch(/^# The history of printing in Europe\n\n## Summary\n\n- /);
      expect(body.match(/^## .+$/gm)).toEqual([
        "## Summary",
        "## Origins and background",
        "## Key periods and events",
        "## Sources",
      ]);
      expect(body).not.toMatch(/Risks|Options|Recommendations/);
      expect(body).not.toMatch(/tell me|2 minutes/i);
      expect(belowTitle(body)).not.toContain(request);
      // Citations still name listed sources.
      const listed = new Set(
        [...body.slice(body.indexOf("## Sources")).matchAll(/^(\d+)\. /gm)].map((m) => Number(m[1])),
      );
      for (const m of body.slice(0, body.indexOf("## Sources")).matchAll(/\[(\d+)\]/g))
        expect(listed.has(Number(m[1]))).toBe(true);
    }
    // The section written after the instruction leans towards it; the instruction itself appears nowhere.
    expect(plain.sections[1].text).not.toMatch(/before Gutenberg/);
    expect(steered.sections[1].text).toMatch(
      /Block books were printed from carved wooden blocks in the Low Countries before Gutenberg \[\d\]\./,
    );
    expect(steered.body).not.toMatch(/Focus on|the period before|As requested|\.\./);
    expect(steered.sections[0].text).toBe(plain.sections[0].text);

    // What a real model reads: the request without its delivery phrase, the shape rules, the instruction framed for every later section.
    const [planPrompt, , secondPrompt] = steered.prompts;
    expect(planPrompt).toContain("Do not fall back on a fixed template");
    for (const p of steered.prompts) {
      expect(readFrames(p).find((f) => f.label === "research request")?.body).toBe(
        "Research the history of printing in Europe",
      );
      expect(p).not.toMatch(/tell me in 2 minutes/);
    }
    expect(secondPrompt).toContain("Never restate or quote the request");
    expect(secondPrompt).toContain("Apply each one where it concerns this section's subject");
    expect(readFrames(secondPrompt).find((f) => f.label === "user update")?.body).toBe(
      "Focus on the period before Gutenberg..",
    );
  });

  it("Chinese: 摘要 first, history sections, no 10分钟后告诉我, the instruction worked in without being pasted", async () => {
    const request = "研究一下欧洲印刷术的历史，10分钟后告诉我";
    const plain = await research(request);
    const steered = await research(request, "重点写古登堡之前的时期");
    for (const { body } of [plain, steered]) {
      expect(body).toMatch(/^# 欧洲印刷术的历史\n\n## 摘要\n\n- /);
      expect(body.match(/^## .+$/gm)).toEqual(["## 摘要", "## 起源与背景", "## 关键时期与事件", "## 参考来源"]);
      expect(body).not.toMatch(/风险|可选方案|建议|Summary|Sources/);
      expect(body).not.toMatch(/10分钟|告诉我/);
    }
    expect(plain.sections[1].text).not.toContain("在古登堡之前");
    expect(steered.sections[1].text).toMatch(/在古登堡之前.低地国家已经用雕刻的木版印刷木版书\[\d\]。/);
    expect(steered.body).not.toMatch(/重点写|古登堡之前的时期/);
  });
});
