import type { ToolSet } from "ai";

export interface ToolContext {
  ownerId: string;
  conversationId: string;
  runId: string;
}

/** The agent's tools. Background-task tools arrive with the durable task runtime. */
export function agentTools(_ctx: ToolContext): ToolSet {
  return {};
}
