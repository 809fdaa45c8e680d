import { env } from "@/lib/config/env";
import { z } from "zod";
import { registerDriver } from "./registry";
import { createMcpDriver } from "./mcp";
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

let registered: {
  raw: string | undefined;
  names: string[];
  choices: { driver: string; description: string }[];
  labels: { driver: string; label: string }[];
} | null = null;

/**
 * Registers `mcp:<name>` for every configured server and returns the driver
 * names. Idempotent per configuration: calling it again (worker start-up and
 * API module both) keeps the existing driver instances and their connections.
 */
export function registerConfiguredMcpDrivers(raw: string | undefined = env("HERALD_MCP_SERVERS")): string[] {
  if (registered && registered.raw === raw) return registered.names;
  const servers = parseMcpServers(raw);
  const names = servers.map((s) => {
    const name = `mcp:${s.name}`;
    registerDriver(name, createMcpDriver(s));
    return name;
  });
  const choices = servers.flatMap((s) => (s.description ? [{ driver: `mcp:${s.name}`, description: s.description }] : []));
  const labels = servers.flatMap((s) => (s.label ? [{ driver: `mcp:${s.name}`, label: s.label }] : []));
  registered = { raw, names, choices, labels };
  return names;
}

/** Servers the chat model may pick (those with a `description`). */
export function mcpChoices(): { driver: string; description: string }[] {
  registerConfiguredMcpDrivers();
  return registered?.choices ?? [];
}

/** Servers the composer's picker offers (those with a `label`). */
export function mcpLabels(): { driver: string; label: string }[] {
  registerConfiguredMcpDrivers();
  return registered?.labels ?? [];
}
