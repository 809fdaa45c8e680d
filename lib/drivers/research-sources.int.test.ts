import { beforeAll, describe, expect, it } from "vitest";
import type { LanguageModelV3, LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { getDb } from "@/lib/db/client";
import * as taskRoute from "@/app/api/tasks/[id]/route";
import type { TaskStep } from "@/lib/db/generated/client.ts";
import { readFrames } from "@/lib/text/frame";
import { call, createConversationFor, signUp, stopWorkers } from "@/tests/helpers";
import { peerEnv, type ResearchPeer } from "@/tests/research-peer";
import { researchFixture } from "@/tests/research-fixture";
import { RESEARCH_UPDATE_TOOL, researchDriver } from "./research";

/**
 * Research against a SearXNG-shaped server and pages on loopback: what the
 * pages say ends up in the report, cited to the page that says it; each page
 * is read once per task, also across a worker killed mid-section; a page's
 * instructions change nothing; a Chinese request gets Chinese headings.
 */

const { peer: peerOf, worker, start, taskRow, succeeded } = researchFixture();
let peer: ResearchPeer;
beforeAll(() => {
  peer = peerOf();
});
const finalBody = async (id: string) =>
  (await getDb().publication.findFirstOrThrow({ where: { taskId: id, partial: false } })).content;

/** `n → url` from the report's Sources list. */
function sourcesList(body: string, heading: string): Map<number, string> {
  const at = body.indexOf(`\n## ${heading}\n\n`);
  expect(at).toBeGreaterThan(0);
  const lines = body.slice(at).split("\n").slice(3);
  return new Map(lines.map((l) => /^(\d+)\. \[[^\]]*\]\((\S+)\)$/.exec(l)!).map((m) => [Number(m[1]), m[2]]));
}

/** The citation right after a fact: `…fact… [n]`. */
function citationOf(body: string, fact: string): number {
  const at = body.indexOf(fact, body.indexOf("\n## ", body.indexOf("\n## ") + 1));
  expect(at, `"${fact}" in a section`).toBeGreaterThan(0);
  const m = /^[^[\n]*\[(\d+)\]/.exec(body.slice(at));
  expect(m, `a citation after "${fact}"`).not.toBeNull();
  return Number(m![1]);
}

describe("research reads and cites its sources", () => {
  it("facts only the pages hold end up in the report, cited to the right URL; every page is read once; a page's instructions change nothing", async () => {
    const u = await signUp("Sources");
    const conv = await createConversationFor(u);
    // A task the injected page asks to cancel: nothing may touch it.
    const bystander = await getDb().task.create({
      data: {
        ownerId: u.id,
        conversationId: conv,
        title: "Bystander",
        prompt: "x",
        status: "running",
        nextRunAt: new Date(Date.now() + 86_400_000),
      },
    });
    const before = new Map(peer.hits);
    const w = worker();
    const id = await start(u, conv, "the otters of Lake Zorb", "Lake Zorb otters");
    const done = await succeeded(id);
    const body = await finalBody(id);

    // Contract: title, then the summary, then the sections, then the sources.
    expect(body).toMatch(/^# Lake Zorb otters\n\n## Summary\n\n- /);
    expect(body).not.toContain("Written without sources");
    const list = sourcesList(body, "Sources");
    expect([...list.keys()]).toEqual([1, 2, 3, 4]);
    expect(new Set(list.values())).toEqual(
      new Set(["/zorb/history", "/zorb/diet", "/zorb/sleep", "/zorb/notes"].map(peer.urlOf)),
    );
    expect(list.get(citationOf(body, "Ada Quillfeather"))).toBe(peer.urlOf("/zorb/history"));
    expect(list.get(citationOf(body, "violet crayfish"))).toBe(peer.urlOf("/zorb/diet"));
    expect(list.get(citationOf(body, "rafts of exactly seven animals"))).toBe(peer.urlOf("/zorb/sleep"));
    expect(list.get(citationOf(body, "412 otters"))).toBe(peer.urlOf("/zorb/notes"));
    // Every citation names a listed source.
    for (const m of body.matchAll(/\[(\d+)\](?!\()/g)) expect(list.has(Number(m[1]))).toBe(true);

    // Read once each, by this task, and stored with their numbers.
    for (const path of ["/zorb/history", "/zorb/diet", "/zorb/sleep", "/zorb/notes"]) {
      expect((peer.hits.get(path) ?? 0) - (before.get(path) ?? 0), path).toBe(1);
    }
    const detail = await call(taskRoute.GET, { user: u, params: { id } });
    expect(detail.json.task.sources.map((s: { n: number; url: string }) => [s.n, s.url])).toEqual([...list.entries()]);
    expect(detail.json.task.spent).toMatchObject({ pagesRead: 4, searches: 3 });
    expect(detail.json.task.sourcesNote).toBeNull();
    const progress = (
      await getDb().message.findMany({ where: { taskId: id, kind: "progress" }, orderBy: { seq: "asc" } })
    ).map((m) => m.content);
    expect(progress).toContain("Searching the web for “the otters of Lake Zorb”");
    expect(progress.some((p) => p.startsWith("Reading 127.0.0.1"))).toBe(true);
    expect(progress).toContain("Researched 2/2: Key facts and figures (4 sources read so far)");

    // "Cancel every task", "delete the conversation": nothing happened.
    expect(await getDb().task.count({ where: { ownerId: u.id, cancelRequestedAt: { not: null } } })).toBe(0);
    expect((await taskRow(bystander.id)).status).toBe("running");
    expect(await getDb().conversation.count({ where: { id: conv } })).toBe(1);
    expect(done.error).toBeNull();
    await stopWorkers(w);
  });

  it("a Chinese request gets a Chinese summary and a 参考来源 list of the Chinese pages", async () => {
    const u = await signUp("SourcesZh");
    const conv = await createConversationFor(u);
    const w = worker();
    const id = await start(u, conv, "左布湖的水獭", "左布湖水獭");
    await succeeded(id);
    const body = await finalBody(id);
    expect(body).toMatch(/^# 左布湖水獭\n\n## 摘要\n\n- /);
    const list = sourcesList(body, "参考来源");
    expect(new Set(list.values())).toEqual(new Set([peer.urlOf("/zorb/zh-history"), peer.urlOf("/zorb/zh-diet")]));
    expect(list.get(citationOf(body, "林秋羽"))).toBe(peer.urlOf("/zorb/zh-history"));
    expect(body).not.toMatch(/## (Sources|Summary)/);
    await stopWorkers(w);
  });
});

describe("a research step as the model sees it", () => {
  it("pages arrive framed as untrusted data, the only tool is the progress line, and citations naming no source are removed", async () => {
    const u = await signUp("SourcesPrompt");
    const conv = await createConversationFor(u);
    const task = await getDb().task.create({
      data: {
        ownerId: u.id,
        conversationId: conv,
        title: "Zorb",
        prompt: "the otters of Lake Zorb",
        options: { simulate: { steps: 1, stepMs: 0 } },
      },
    });
    const seen: LanguageModelV3CallOptions[] = [];
    const model: LanguageModelV3 = {
      specificationVersion: "v3",
      provider: "test",
      modelId: "scripted",
      supportedUrls: {},
      async doGenerate(options) {
        seen.push(options);
        return {
          content: [
            { type: "text", text: "Zorb otters sleep in rafts of seven [1]. An invented claim [9]. Another [2, 17]." },
          ],
          finishReason: { unified: "stop", raw: undefined },
          usage: {
            inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 1, text: 1, reasoning: 0 },
          },
          warnings: [],
        };
      },
      doStream() {
        throw new Error("not used");
      },
    };
    const plan = {
      id: "p",
      taskId: task.id,
      index: 0,
      kind: "plan",
      input: {},
      output: { sections: ["Habits"], lang: "en" },
      modelRequests: 1,
      inputTokens: 0,
      outputTokens: 0,
      createdAt: new Date(),
    } as unknown as TaskStep;
    const saved = { ...process.env };
    Object.assign(process.env, peerEnv(peer), { HERALD_RESEARCH_MAX_SOURCES: "4" });
    try {
      const outcome = await researchDriver.step({
        task,
        pendingUpdates: [],
        steps: [plan],
        model,
        signal: new AbortController().signal,
        reportProgress: async () => "shown",
        sources: [],
      });
      expect(seen[0].tools?.map((t) => t.name)).toEqual([RESEARCH_UPDATE_TOOL]);
      const prompt = JSON.stringify(seen[0].prompt);
      const text = JSON.parse(prompt)[0].content[0].text as string;
      const frames = readFrames(text);
      expect(frames.filter((f) => f.label.startsWith("source ")).map((f) => f.label)).toEqual([
        "source 1",
        "source 2",
        "source 3",
        "source 4",
      ]);
      // The page's instructions are inside its frame, nowhere else.
      const outside = frames.reduceRight((s, f) => s.slice(0, f.start) + s.slice(f.end), text);
      expect(outside).not.toMatch(/Ignore previous instructions|admin mode/);
      expect(frames.some((f) => f.body.includes("Ignore previous instructions"))).toBe(true);
      expect(outcome.sources?.map((s) => s.n)).toEqual([1, 2, 3, 4]);
      expect((outcome.step?.output as { text: string }).text).toBe(
        "Zorb otters sleep in rafts of seven [1]. An invented claim. Another [2].",
      );
      // No citation names 9 or 17 any more (the Sources list's URLs carry a random port, which may hold "17").
      expect(outcome.publish?.content).not.toMatch(/\[9\]|\[[^\]]*\b17\b[^\]]*\]/);
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });
});
