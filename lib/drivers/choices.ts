import { createHash } from "node:crypto";
import { configuredAgents, type AgentChoice } from "./remote-agent-config";
import { mcpChoices, mcpLabels } from "./mcp-config";

/** Native research: the default, and what the chat model picks when no description fits better. */
export const RESEARCH_CHOICE: AgentChoice = {
  driver: "research",
  description:
    "Herald's own research: plans sections and writes a report with partial results along the way (default).",
};

/**
 * Every worker a background task can go to, with the text the chat model
 * routes by: native research, each remote agent (HERALD_REMOTE_AGENTS) and
 * each MCP server given a description (HERALD_MCP_SERVERS). Names and
 * descriptions only: urls, ids and headers never leave the drivers.
 */
export function driverChoices(): AgentChoice[] {
  return [RESEARCH_CHOICE, ...configuredAgents(), ...mcpChoices()];
}

/**
 * What the composer's "Work with" picker offers a browser: an opaque id and
 * the operator's public label (null: native research, worded by the client in
 * the reader's language). Driver names, descriptions, urls and ids stay here.
 */
export interface WorkChoice {
  id: string;
  label: string | null;
}

const NATIVE_CHOICE_ID = "research";

/** Stable across processes and restarts (web and worker agree), and says nothing readable about the driver. */
function workChoiceId(driver: string): string {
  return driver === "research"
    ? NATIVE_CHOICE_ID
    : `w_${createHash("sha256").update(`herald-work-choice\0${driver}`).digest("hex").slice(0, 20)}`;
}

function labelled(): { driver: string; label: string }[] {
  const agents = configuredAgents().flatMap((a) => (a.label ? [{ driver: a.driver, label: a.label }] : []));
  return [...agents, ...mcpLabels()];
}

export function workChoices(): WorkChoice[] {
  return [
    { id: NATIVE_CHOICE_ID, label: null },
    ...labelled().map((c) => ({ id: workChoiceId(c.driver), label: c.label })),
  ];
}

/** The driver behind a picker id, or null for an id this server does not offer. */
export function driverForWorkChoice(id: string): string | null {
  if (id === NATIVE_CHOICE_ID) return "research";
  return labelled().find((c) => workChoiceId(c.driver) === id)?.driver ?? null;
}
