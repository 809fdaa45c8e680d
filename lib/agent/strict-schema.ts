import type { JSONSchema7, JSONSchema7Definition } from "@ai-sdk/provider";

/**
 * Keywords a strict-mode schema may carry: the common subset of OpenAI's
 * documented Structured Outputs subset that every strict provider accepts
 * (length, range and format constraints are left out: Herald's zod schemas
 * still enforce them when the arguments arrive).
 */
const STRICT_KEYWORDS: ReadonlySet<string> = new Set([
  "type",
  "description",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "anyOf",
  "$ref",
  "$defs",
  "definitions",
]);

/**
 * A tool's JSON schema as strict function calling takes it: no `$schema`,
 * every object closed (`additionalProperties: false`) with every property
 * required, an optional property made nullable instead (Herald's schemas accept
 * null wherever a field may be left out), `const` as a one-value `enum`, and
 * keywords outside STRICT_KEYWORDS dropped. The root stays an object.
 */
export function strictToolSchema(schema: JSONSchema7): JSONSchema7 {
  const out = strict(schema);
  return typeof out === "boolean" || out.type !== "object"
    ? { type: "object", properties: {}, required: [], additionalProperties: false }
    : out;
}

function strict(def: JSONSchema7Definition): JSONSchema7 {
  if (typeof def === "boolean") return {};
  const out: JSONSchema7 = {};
  for (const [key, value] of Object.entries(def)) {
    if (key === "const") out.enum = [value as never];
    else if (STRICT_KEYWORDS.has(key)) (out as Record<string, unknown>)[key] = value;
  }
  if (out.anyOf) out.anyOf = out.anyOf.map(strict);
  if (out.items && !Array.isArray(out.items)) out.items = strict(out.items);
  for (const defs of ["$defs", "definitions"] as const) {
    const d = out[defs];
    if (d) out[defs] = Object.fromEntries(Object.entries(d).map(([k, v]) => [k, strict(v)]));
  }
  if (out.type === "object" || out.properties) {
    const props = out.properties ?? {};
    const required = new Set(def.required ?? []);
    out.type = "object";
    out.properties = Object.fromEntries(
      Object.entries(props).map(([k, v]) => [k, required.has(k) ? strict(v) : nullable(strict(v))]),
    );
    out.required = Object.keys(props);
    out.additionalProperties = false;
  }
  return out;
}

function nullable(s: JSONSchema7): JSONSchema7 {
  const isNull = (x: JSONSchema7Definition) =>
    typeof x !== "boolean" && (x.type === "null" || (Array.isArray(x.type) && x.type.includes("null")));
  if (s.anyOf) return s.anyOf.some(isNull) ? s : { ...s, anyOf: [...s.anyOf, { type: "null" }] };
  if (isNull(s)) return s;
  if (s.enum && s.type)
    return { ...s, type: [s.type as string, "null"].flat() as JSONSchema7["type"], enum: [...s.enum, null] };
  if (typeof s.type === "string") return { ...s, type: [s.type, "null"] };
  if (Array.isArray(s.type)) return { ...s, type: [...s.type, "null"] };
  // No type to widen (an enum or a $ref): say it as a union.
  const { description, ...rest } = s;
  return { ...(description ? { description } : {}), anyOf: [rest, { type: "null" }] };
}
