import type { Driver } from "./types";
import { researchDriver } from "./research";
import { configuredAgentDrivers, configuredAgents } from "./remote-agent-config";
import { configuredMcpDrivers, configuredMcpNames } from "./mcp-config";
import { driverFor, driversSetUp, openRegistry, registerDriver } from "./registry";

/**
 * Process start: native research plus a driver for every configured remote
 * agent (HERALD_REMOTE_AGENTS) and MCP server (HERALD_MCP_SERVERS), as the
 * configuration reads now; `extra` adds drivers of the caller's own (the bench's
 * no-op). Called by worker/index.ts and scripts/server.ts before they serve
 * anything. Calling it again (a test that changed the configuration) adds the
 * newly configured drivers and keeps the instances of unchanged ones.
 */
export async function setUpDrivers(extra: Record<string, Driver> = {}): Promise<string[]> {
  openRegistry();
  const all: [string, Driver][] = [
    ["research", researchDriver],
    ...(await configuredMcpDrivers()),
    ...(await configuredAgentDrivers()),
    ...Object.entries(extra),
  ];
  for (const [name, driver] of all) registerDriver(name, driver);
  return all.map(([name]) => name);
}

/**
 * Whether a task may be started with `name`: a driver this deployment is
 * configured with (read now, so the web process agrees with workers started
 * on the same configuration), or one this process set up (a test's double).
 */
export function isKnownDriver(name: string): boolean {
  if (name === "research" || configuredAgents().some((a) => a.driver === name) || configuredMcpNames().includes(name))
    return true;
  return driversSetUp() && driverFor(name) !== null;
}
