import { afterEach, describe, expect, it } from "vitest";
import { asSchema } from "ai";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { agentTools } from "../tools";
import { TOOLS } from "../tool-names";
import { planOfflineTurn } from "./brain";
import { routeAgent, routeOptionsFrom, routeWords, type RouteOption } from "./route-agent";
import { adversarialCorpus, superlinearInputs } from "@/tests/adversarial-text";

const OPTIONS: RouteOption[] = [
  { value: "research", description: "Herald's own research: plans sections and writes a report (default)." },
  { value: "agent:patents", description: "Patent landscape agent: searches patents, prior art and claims" },
  { value: "agent:markets", description: "Market data agent: stock prices, earnings and analyst ratings" },
  { value: "mcp:legal", description: "Court rulings and case law lookup" },
];

describe("routeAgent: deterministic routing by the options' descriptions", () => {
  it.each([
    ["research the prior art on solid-state battery patents", "agent:patents"],
    ["look into the earnings and analyst ratings of ASML", "agent:markets"],
    ["investigate court rulings on web scraping", "mcp:legal"],
    ["ask markets to research heat pump makers", "agent:markets"],
    // Nothing distinctive in common: Herald's own research (the tool's default).
    ["research the history of the printing press", null],
    // Equal evidence for two agents: no guess, native research.
    ["research patents and stock", null],
  ])("%s → %s", (text, expected) => {
    expect(routeAgent(text, OPTIONS)).toBe(expected);
  });

  it("generic words and plurals: 'agent', 'research', 'report' tell no option apart; 'patents' is 'patent'", () => {
    expect([...routeWords("A research agent that writes a report on patents")]).toEqual(["patent"]);
    expect(routeAgent("write a report on anything", OPTIONS)).toBeNull();
  });

  it("without options, or with native research only, nothing is routed", () => {
    expect(routeAgent("research patents", [])).toBeNull();
    expect(routeAgent("research patents", OPTIONS.slice(0, 1))).toBeNull();
  });

  it("stays fast on adversarial text", () => {
    const t0 = performance.now();
    for (const { text } of adversarialCorpus()) routeAgent(text, OPTIONS);
    expect(performance.now() - t0).toBeLessThan(2_000);
  });

  it("takes time linear in the text on every adversarial input (a word ending in a long run of dashes)", () => {
    expect(superlinearInputs((text) => routeAgent(text, OPTIONS))).toEqual([]);
  });

  it("still drops a word's trailing dashes and apostrophes", () => {
    expect([...routeWords("patents' prior-art-- claims’")]).toEqual(["patent", "prior-art", "claim"]);
  });
});

describe("the start tool offers configured agents and the offline model picks one", () => {
  afterEach(() => {
    delete process.env.HERALD_REMOTE_AGENTS;
  });

  const prompt = (text: string): LanguageModelV3Prompt => [{ role: "user", content: [{ type: "text", text }] }];

  async function startSchema() {
    const tools = agentTools({ ownerId: "o", conversationId: "c", runId: "r" }, "user-turn");
    return asSchema(tools[TOOLS.start].inputSchema).jsonSchema;
  }

  it("with remote agents configured: agent lists research and each agent with its description; routing uses them", async () => {
    process.env.HERALD_REMOTE_AGENTS = JSON.stringify([
      { name: "patents", description: OPTIONS[1].description, url: "http://127.0.0.1:9", assistantId: "g" },
      { name: "markets", description: OPTIONS[2].description, url: "http://127.0.0.1:9", assistantId: "g" },
    ]);
    const routes = routeOptionsFrom(await startSchema());
    expect(routes.map((r) => r.value)).toEqual(["research", "agent:patents", "agent:markets"]);
    expect(routes[1].description).toBe(OPTIONS[1].description);
    expect(JSON.stringify(await startSchema())).not.toContain("127.0.0.1");

    const text = "research the prior art on solid-state battery patents";
    const turn = planOfflineTurn(prompt(text), [TOOLS.start], routes);
    expect(turn).toMatchObject({
      type: "tool-call",
      toolName: TOOLS.start,
      input: { agent: "agent:patents", prompt: text },
    });
    const native = planOfflineTurn(prompt("research the history of the printing press"), [TOOLS.start], routes);
    expect(native.type === "tool-call" && "agent" in native.input).toBe(false);
  });

  it("without remote agents the start tool has no agent argument", async () => {
    const schema = (await startSchema()) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties).sort()).toEqual(["prompt", "title"]);
  });
});
