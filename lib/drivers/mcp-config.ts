import { env } from "@/lib/config/env";
import { z } from "zod";
import type { McpDriver } from "./mcp";
import { log } from "@/lib/util/log";

/**
 * MCP servers come from `HERALD_MCP_SERVERS`, a JSON array of
 * `{name, url, tool, headers?}`; each becomes the driver `mcp:<name>`.
 * A bad entry is logged and skipped so one typo does not take the others down.
 */
const serverEntry = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/, "letters, digits, '_', '.', '-' (max 63)"),
  url: z.url({ protocol: /^https?$/ }),
  tool: z.string().min(1).max(128),
  headers: z.record(z.string(), z.string()).optional(),
  /** Offered to the chat model's start tool (routing text) only when given; no secrets in it. */
  description: z.string().trim().min(1).max(500).optional(),
  /** Shown to users in the composer's "Work with" picker; without it the server is not offered there. */
  label: z.string().trim().min(1).max(80).optional(),
  /** False when this server's tasks/list also shows tasks Herald did not create (shared credentials): no orphan reaping. */
  reapOrphans: z.boolean().optional(),
});

export type McpServerEntry = z.infer<typeof serverEntry>;

/** Parses the variable; never logs header values (they usually carry credentials). */
export function parseMcpServers(raw: string | undefined): McpServerEntry[] {
  if (!raw?.trim()) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    log("mcp").error("HERALD_MCP_SERVERS is not valid JSON; no MCP drivers registered");
    return [];
  }
  if (!Array.isArray(parsed)) {
    log("mcp").error("HERALD_MCP_SERVERS must be a JSON array; no MCP drivers registered");
    return [];
  }
  const out: McpServerEntry[] = [];
  const seen = new Set<string>();
  parsed.forEach((entry, i) => {
    const r = serverEntry.safeParse(entry);
    if (!r.success) {
      const issues = r.error.issues.map((x) => `${x.path.join(".") || "(entry)"}: ${x.message}`).join("; ");
      log("mcp").error(`HERALD_MCP_SERVERS[${i}] skipped: ${issues}`);
      return;
    }
    if (seen.has(r.data.name)) {
      log("mcp").error(`HERALD_MCP_SERVERS[${i}] skipped: duplicate name "${r.data.name}"`);
      return;
    }
    seen.add(r.data.name);
    out.push(r.data);
  });
  return out;
}

let configured: {
  raw: string | undefined;
  servers: McpServerEntry[];
  drivers: [string, McpDriver][] | null;
  choices: { driver: string; description: string }[];
  labels: { driver: string; label: string }[];
} | null = null;

/** The configuration as read now, parsed once per value of the variable. */
function configuration(raw: string | undefined) {
  if (configured && configured.raw === raw) return configured;
  const servers = parseMcpServers(raw);
  const choices = servers.flatMap((s) =>
    s.description ? [{ driver: `mcp:${s.name}`, description: s.description }] : [],
  );
  const labels = servers.flatMap((s) => (s.label ? [{ driver: `mcp:${s.name}`, label: s.label }] : []));
  configured = { raw, servers, drivers: null, choices, labels };
  return configured;
}

/** Every configured server's driver name (`mcp:<name>`). */
export function configuredMcpNames(raw: string | undefined = env("HERALD_MCP_SERVERS")): string[] {
  return configuration(raw).servers.map((s) => `mcp:${s.name}`);
}

/**
 * A driver for every configured server, for `setUpDrivers()`. The same
 * instances (and their connections) while the configuration is unchanged.
 */
export async function configuredMcpDrivers(
  raw: string | undefined = env("HERALD_MCP_SERVERS"),
): Promise<[string, McpDriver][]> {
  const c = configuration(raw);
  if (c.drivers) return c.drivers;
  // The MCP SDK is loaded by a process that has a server to talk to. With the LangGraph SDK (remote-agent-config.ts)
  // and the HTML reader (lib/research/read-page.ts) loaded the same way, a bare worker starts on 1.1 s of CPU, not 2.3 s.
  const made: [string, McpDriver][] = c.servers.length
    ? await import("./mcp").then(({ createMcpDriver }) => c.servers.map((s) => [`mcp:${s.name}`, createMcpDriver(s)]))
    : [];
  return (c.drivers ??= made);
}

/** Servers the chat model may pick (those with a `description`). */
export function mcpChoices(): { driver: string; description: string }[] {
  return configuration(env("HERALD_MCP_SERVERS")).choices;
}

/** Servers the composer's picker offers (those with a `label`). */
export function mcpLabels(): { driver: string; label: string }[] {
  return configuration(env("HERALD_MCP_SERVERS")).labels;
}
