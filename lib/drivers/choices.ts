import { registerConfiguredAgentDrivers, type AgentChoice } from "./agent-config";
import { mcpChoices } from "./mcp-config";

/** Native research: the default, and what the chat model picks when no description fits better. */
export const RESEARCH_CHOICE: AgentChoice = {
  driver: "research",
  description: "Herald's own research: plans sections and writes a report with partial results along the way (default).",
};

/**
 * Every worker a background task can go to, with the text the chat model
 * routes by: native research, each remote agent (HERALD_REMOTE_AGENTS) and
 * each MCP server given a description (HERALD_MCP_SERVERS). Names and
 * descriptions only: urls, ids and headers never leave the drivers.
 */
export function driverChoices(): AgentChoice[] {
  return [RESEARCH_CHOICE, ...registerConfiguredAgentDrivers(), ...mcpChoices()];
}
