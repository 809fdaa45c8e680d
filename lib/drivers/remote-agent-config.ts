import { readFileSync } from "node:fs";
import { env } from "@/lib/config/env";
import { z } from "zod";
import type { Driver } from "./types";
import { log } from "@/lib/util/log";

/**
 * Remote agents come from `HERALD_REMOTE_AGENTS`: a JSON array, or the path of
 * a file holding one, of `{name, description, url, assistantId, headersFromEnv?}`.
 * Each becomes the driver `agent:<name>`. Header values are never written in
 * the configuration: `headersFromEnv` maps a header to the environment
 * variable holding its secret. A bad entry is logged and skipped.
 */
const entry = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/, "letters, digits, '_', '.', '-' (max 63)"),
  /** What the model routes by (and the offline model's keywords); shown to the model, so no secrets. */
  description: z.string().trim().min(1).max(500),
  url: z.url({ protocol: /^https?$/ }),
  /** The assistant id or graph id the runs are created for. */
  assistantId: z.string().min(1).max(200),
  /** The remote's own run time limit as the operator knows it (shown in the sheet beside the deadline and the poll interval). */
  runTimeoutSeconds: z
    .number()
    .int()
    .positive()
    .max(30 * 24 * 3600)
    .optional(),
  /** Shown to users in the composer's "Work with" picker; without it the agent is not offered there. */
  label: z.string().trim().min(1).max(80).optional(),
  headersFromEnv: z
    .record(
      z.string().regex(/^[A-Za-z0-9-]{1,100}$/, "a header name"),
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "an environment variable name"),
    )
    .optional(),
});

export interface RemoteAgentEntry {
  name: string;
  description: string;
  url: string;
  assistantId: string;
  /** Resolved header values: secrets, never logged or shown. */
  headers: Record<string, string>;
  runTimeoutSeconds?: number;
  label?: string;
}

const PREFIX = "[agents] HERALD_REMOTE_AGENTS";

function source(raw: string): string | null {
  const t = raw.trim();
  if (t.startsWith("[")) return t;
  try {
    return readFileSync(t, "utf8");
  } catch {
    log("agents").error(`${PREFIX} is neither a JSON array nor a readable file; no remote agents registered`);
    return null;
  }
}

/**
 * Parses the variable. `secrets` looks up the variables `headersFromEnv`
 * names; they are operator-chosen names, so they cannot be ENV_SCHEMA keys.
 */
export function parseRemoteAgents(
  raw: string | undefined,
  secrets: (name: string) => string | undefined = (n) => process.env[n],
): RemoteAgentEntry[] {
  if (!raw?.trim()) return [];
  const text = source(raw);
  if (text === null) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    log("agents").error(`${PREFIX} is not valid JSON; no remote agents registered`);
    return [];
  }
  if (!Array.isArray(parsed)) {
    log("agents").error(`${PREFIX} must be a JSON array; no remote agents registered`);
    return [];
  }
  const out: RemoteAgentEntry[] = [];
  const seen = new Set<string>();
  parsed.forEach((item, i) => {
    const r = entry.safeParse(item);
    if (!r.success) {
      const issues = r.error.issues.map((x) => `${x.path.join(".") || "(entry)"}: ${x.message}`).join("; ");
      log("agents").error(`${PREFIX}[${i}] skipped: ${issues}`);
      return;
    }
    if (seen.has(r.data.name)) {
      log("agents").error(`${PREFIX}[${i}] skipped: duplicate name "${r.data.name}"`);
      return;
    }
    const headers: Record<string, string> = {};
    for (const [header, variable] of Object.entries(r.data.headersFromEnv ?? {})) {
      const value = secrets(variable);
      if (!value) {
        // The variable's name only: its value is a secret.
        log("agents").error(`${PREFIX}[${i}] skipped: ${variable} (header ${header}) is not set`);
        return;
      }
      headers[header] = value;
    }
    seen.add(r.data.name);
    const { runTimeoutSeconds, label } = r.data;
    out.push({
      name: r.data.name,
      description: r.data.description,
      url: r.data.url,
      assistantId: r.data.assistantId,
      headers,
      ...(runTimeoutSeconds ? { runTimeoutSeconds } : {}),
      ...(label ? { label } : {}),
    });
  });
  return out;
}

/** What the start tool and the composer may offer: name and description, never url, ids or headers. */
export interface AgentChoice {
  driver: string;
  description: string;
  /** The operator's public name for the composer's picker; unlabelled agents are not offered there. */
  label?: string;
}

let configured: {
  raw: string | undefined;
  agents: RemoteAgentEntry[];
  choices: AgentChoice[];
  drivers: [string, Driver][] | null;
} | null = null;

/** The configuration as read now, parsed once per value of the variable. */
function configuration(raw: string | undefined) {
  if (configured && configured.raw === raw) return configured;
  const agents = parseRemoteAgents(raw);
  const choices = agents.map((a) => ({
    driver: `agent:${a.name}`,
    description: a.description,
    ...(a.label ? { label: a.label } : {}),
  }));
  configured = { raw, agents, choices, drivers: null };
  return configured;
}

/** What the start tool and the picker may offer of the configured remote agents (`agent:<name>`). */
export function configuredAgents(raw: string | undefined = env("HERALD_REMOTE_AGENTS")): AgentChoice[] {
  return configuration(raw).choices;
}

/** A driver for every configured remote agent, for `setUpDrivers()`; the same instances while the configuration is unchanged. */
export async function configuredAgentDrivers(
  raw: string | undefined = env("HERALD_REMOTE_AGENTS"),
): Promise<[string, Driver][]> {
  const c = configuration(raw);
  if (c.drivers) return c.drivers;
  // The LangGraph SDK is loaded by a process that has an agent to talk to (mcp-config.ts says why).
  const made: [string, Driver][] = c.agents.length
    ? await import("./remote-agent").then(({ createAgentDriver }) =>
        c.agents.map((a) => [`agent:${a.name}`, createAgentDriver(a)]),
      )
    : [];
  return (c.drivers ??= made);
}
