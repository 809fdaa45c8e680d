/**
 * Which worker a research request goes to, read the way the offline model
 * reads everything: pure rules over text. Each option's description is the
 * operator's routing text; an option wins when the request shares more of its
 * distinctive words than any other option's. Ties and no match keep native
 * research, so the same request always lands on the same worker.
 */
export interface RouteOption {
  value: string;
  description: string;
}

export const NATIVE_OPTION = "research";

// Words every research request or agent description has: they tell no agent apart.
const GENERIC = new Set(
  (
    "agent agents remote service server tool tools research researches researcher researching report reports reporting " +
    "analysis analyse analyze analyses analyzes analysing analyzing study studies task tasks work works deep background long " +
    "about with from that this these those their them they into using uses use used what which when where will would your " +
    "some other more most also only over under than then have been were does done make makes made like just very much many " +
    "find finds write writes answer answers question questions herald's herald own model models mcp"
  ).split(" "),
);

/** Distinctive words (linear: one pass of a non-backtracking pattern). */
export function routeWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu)) {
    // The lookbehind keeps the trim linear: "a---…-x" would otherwise retry the run from each dash.
    const w = m[0].replace(/(?<!['’-])['’-]+$/, "");
    if (w.length < 4 || GENERIC.has(w)) continue;
    // "patents" and "patent" are one word here.
    out.add(w.length > 4 && w.endsWith("s") && !w.endsWith("ss") ? w.slice(0, -1) : w);
  }
  return out;
}

/** The option value to use, or null for native research (the tool's default). */
export function routeAgent(request: string, options: readonly RouteOption[]): string | null {
  const asked = routeWords(request);
  let best: string | null = null;
  let bestScore = 0;
  let tied = false;
  for (const o of options) {
    if (o.value === NATIVE_OPTION) continue;
    let score = 0;
    // The name ("ask markets to …") is one more keyword of its option.
    const words = routeWords(`${o.value.slice(o.value.indexOf(":") + 1)} ${o.description}`);
    for (const w of words) if (asked.has(w)) score++;
    if (score > bestScore) {
      best = o.value;
      bestScore = score;
      tied = false;
    } else if (score === bestScore && score > 0) tied = true;
  }
  return bestScore > 0 && !tied ? best : null;
}

/**
 * The options a start tool's JSON Schema offers for `agent`: every `const`
 * string with its description, however the schema nests them (anyOf, oneOf,
 * a nullable wrapper). Depth-bounded: the schema comes from our own tool.
 */
export function routeOptionsFrom(inputSchema: unknown): RouteOption[] {
  const agent = (inputSchema as { properties?: Record<string, unknown> } | null)?.properties?.agent;
  const out: RouteOption[] = [];
  const walk = (node: unknown, depth: number) => {
    if (!node || typeof node !== "object" || depth > 4) return;
    const n = node as { const?: unknown; description?: unknown; anyOf?: unknown; oneOf?: unknown };
    if (typeof n.const === "string")
      out.push({ value: n.const, description: typeof n.description === "string" ? n.description : "" });
    for (const list of [n.anyOf, n.oneOf]) if (Array.isArray(list)) for (const child of list) walk(child, depth + 1);
  };
  walk(agent, 0);
  return out;
}
