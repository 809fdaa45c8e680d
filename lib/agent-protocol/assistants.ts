import type { ApAssistant, ApAssistantSchemas } from "@/lib/contract/ap";
import { notFound } from "@/lib/errors/api-error";
import { RESEARCH_ASSISTANT } from "./create-run";

/**
 * What this server offers, in LangGraph's Assistant shape. Herald has one graph,
 * `research` (remote agents are things Herald delegates to, not things it serves:
 * none is exposed here). Its dates are fixed: the assistant is code, not a row,
 * and a client comparing `updated_at` must not see it change on every restart.
 */
const DEFINED_AT = "2026-01-01T00:00:00.000Z";

const message = {
  type: "object",
  required: ["content"],
  properties: {
    role: { type: "string", enum: ["user", "human", "assistant", "ai"] },
    type: { type: "string" },
    content: {
      oneOf: [
        { type: "string" },
        {
          type: "array",
          items: {
            type: "object",
            required: ["type"],
            properties: { type: { type: "string" }, text: { type: "string" } },
          },
        },
      ],
    },
  },
};

const RESEARCH_SCHEMAS: ApAssistantSchemas = {
  graph_id: RESEARCH_ASSISTANT,
  input_schema: {
    title: "ResearchInput",
    type: "object",
    required: ["messages"],
    properties: {
      messages: {
        type: "array",
        minItems: 1,
        items: message,
        description: "The last user message is the research question",
      },
    },
  },
  output_schema: {
    title: "ResearchOutput",
    type: "object",
    properties: {
      messages: {
        type: "array",
        items: message,
        description: "Each run's question (human) and each finished report (ai, Markdown)",
      },
    },
  },
  state_schema: {
    title: "ResearchState",
    type: "object",
    properties: { messages: { type: "array", items: message } },
  },
  config_schema: { title: "ResearchConfig", type: "object", properties: {} },
  context_schema: { title: "ResearchContext", type: "object", properties: {} },
};

const RESEARCH: ApAssistant = {
  assistant_id: RESEARCH_ASSISTANT,
  graph_id: RESEARCH_ASSISTANT,
  name: "research",
  description:
    "Durable web research: plans, reads sources and writes a cited Markdown report; runs for minutes, survives restarts",
  config: {},
  context: {},
  metadata: { created_by: "system" },
  version: 1,
  created_at: DEFINED_AT,
  updated_at: DEFINED_AT,
};

const ASSISTANTS = [RESEARCH];

export function getAssistant(id: string): ApAssistant {
  const a = ASSISTANTS.find((x) => x.assistant_id === id || x.graph_id === id);
  if (!a) throw notFound("Assistant");
  return a;
}

export function getAssistantSchemas(id: string): ApAssistantSchemas {
  getAssistant(id);
  return RESEARCH_SCHEMAS;
}

const contains = (have: Record<string, unknown>, want: Record<string, unknown>) =>
  Object.entries(want).every(([k, v]) => JSON.stringify(have[k]) === JSON.stringify(v));

export function searchAssistants(q: {
  graph_id?: string;
  name?: string;
  metadata?: Record<string, unknown>;
  limit?: number;
  offset?: number;
}): ApAssistant[] {
  const offset = q.offset ?? 0;
  return ASSISTANTS.filter(
    (a) =>
      (q.graph_id === undefined || a.graph_id === q.graph_id) &&
      (q.name === undefined || a.name.toLowerCase().includes(q.name.toLowerCase())) &&
      contains(a.metadata, q.metadata ?? {}),
  ).slice(offset, offset + (q.limit ?? 10));
}
