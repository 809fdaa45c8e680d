import { afterEach, describe, expect, it } from "vitest";
import { asSchema, type ToolSet } from "ai";
import type { JSONSchema7, JSONSchema7Definition } from "@ai-sdk/provider";
import { z } from "zod";
import { strictToolSchema } from "./strict-schema";
import { agentTools } from "./tools";

/**
 * OpenAI's documented Structured Outputs subset for strict function calling
 * (platform.openai.com/docs/guides/structured-outputs#supported-schemas): the
 * root is an object and not anyOf; every object sets additionalProperties:
 * false and lists every property in required; only the supported keywords;
 * at most 5000 properties and 10 levels of nesting. The violations, empty when
 * the schema conforms.
 */
const SUPPORTED = new Set([
  "type",
  "description",
  "title",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "$ref",
  "$defs",
  "definitions",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);
const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);

function violations(root: JSONSchema7): string[] {
  const out: string[] = [];
  if (root.type !== "object") out.push("root: not an object");
  if (root.anyOf) out.push("root: anyOf");
  let properties = 0;
  const walk = (def: JSONSchema7Definition, path: string, depth: number) => {
    if (typeof def === "boolean") return void out.push(`${path}: boolean schema`);
    if (depth > 10) out.push(`${path}: nested deeper than 10`);
    for (const key of Object.keys(def)) if (!SUPPORTED.has(key)) out.push(`${path}: unsupported keyword ${key}`);
    for (const t of [def.type ?? []].flat()) if (!TYPES.has(t)) out.push(`${path}: type ${t}`);
    if (def.type === "object" || [def.type].flat().includes("object") || def.properties) {
      const keys = Object.keys(def.properties ?? {});
      properties += keys.length;
      if (def.additionalProperties !== false) out.push(`${path}: additionalProperties is not false`);
      const required = new Set(def.required ?? []);
      for (const k of keys) if (!required.has(k)) out.push(`${path}.${k}: not required`);
      for (const [k, v] of Object.entries(def.properties ?? {})) walk(v, `${path}.${k}`, depth + 1);
    }
    if (def.items) for (const item of [def.items].flat()) walk(item, `${path}[]`, depth + 1);
    def.anyOf?.forEach((v, i) => walk(v, `${path}|${i}`, depth + 1));
    for (const defs of [def.$defs, def.definitions])
      for (const [k, v] of Object.entries(defs ?? {})) walk(v, `${path}#${k}`, depth + 1);
  };
  walk(root, "$", 0);
  if (properties > 5000) out.push("more than 5000 properties");
  return out;
}

const offered = async (tools: ToolSet) =>
  Object.fromEntries(
    await Promise.all(
      Object.entries(tools).map(async ([name, t]) => [name, await asSchema(t.inputSchema).jsonSchema] as const),
    ),
  );

describe("tool schemas in strict mode", () => {
  afterEach(() => {
    delete process.env.HERALD_REMOTE_AGENTS;
  });

  it("the subset check itself catches what strict mode refuses", async () => {
    const raw = await asSchema(z.object({ a: z.string().max(3), b: z.number().nullish() })).jsonSchema;
    expect(violations(raw)).toEqual(
      expect.arrayContaining([
        "$: unsupported keyword $schema",
        "$.a: unsupported keyword maxLength",
        "$.b: not required",
      ]),
    );
  });

  it("every tool Herald offers conforms once converted, with and without agent choices", async () => {
    for (const agents of [
      undefined,
      [
        { name: "patents", description: "Patent search", url: "http://127.0.0.1:9", assistantId: "g" },
        { name: "markets", description: "Market data", url: "http://127.0.0.1:9", assistantId: "g" },
      ],
    ]) {
      if (agents) process.env.HERALD_REMOTE_AGENTS = JSON.stringify(agents);
      const schemas = await offered(agentTools({ ownerId: "o", conversationId: "c", runId: "r" }, "user-turn"));
      expect(Object.keys(schemas)).toHaveLength(5);
      for (const [name, schema] of Object.entries(schemas)) {
        expect(violations(strictToolSchema(schema)), name).toEqual([]);
      }
    }
  });

  it("an optional field becomes required and nullable; the arguments a strict model sends still validate", async () => {
    const tools = agentTools({ ownerId: "o", conversationId: "c", runId: "r" }, "user-turn");
    const schemas = await offered(tools);
    const cancel = strictToolSchema(schemas.cancel_background_task);
    expect(cancel).toEqual({
      type: "object",
      properties: { task: { anyOf: [{ type: "string" }, { type: "null" }], description: "Task title or id" } },
      required: ["task"],
      additionalProperties: false,
    });
    const list = strictToolSchema(schemas.list_background_tasks);
    expect(list.properties?.activeOnly).toMatchObject({ type: ["boolean", "null"] });
    // What a strict model must send (every field, null for "not given") is what Herald's own validation accepts.
    const validate = async (name: string, value: unknown) =>
      (await asSchema(tools[name].inputSchema).validate?.(value))?.success;
    expect(await validate("cancel_background_task", { task: null })).toBe(true);
    expect(await validate("list_background_tasks", { activeOnly: null })).toBe(true);
    expect(await validate("start_background_task", { title: "Tides", prompt: "research tides" })).toBe(true);
  });

  it("keeps enums closed over null and drops $schema at the root", () => {
    const s = strictToolSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: {
        mode: { type: "string", enum: ["at", "by"] },
        pick: { const: "x" },
        n: { type: "integer", minimum: 1, default: 2 },
      },
      required: ["pick"],
    });
    expect(s).toEqual({
      type: "object",
      properties: {
        mode: { type: ["string", "null"], enum: ["at", "by", null] },
        pick: { enum: ["x"] },
        n: { type: ["integer", "null"] },
      },
      required: ["mode", "pick", "n"],
      additionalProperties: false,
    });
    expect(violations(s)).toEqual([]);
  });
});
