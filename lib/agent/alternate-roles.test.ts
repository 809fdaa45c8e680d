import { describe, expect, it } from "vitest";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { alternateRoles } from "./alternate-roles";

const user = (text: string) => ({ role: "user" as const, content: [{ type: "text" as const, text }] });
const assistant = (text: string) => ({ role: "assistant" as const, content: [{ type: "text" as const, text }] });
const call = (id: string) => ({
  type: "tool-call" as const,
  toolCallId: id,
  toolName: "start_background_task",
  input: {},
});
const result = (id: string) => ({
  type: "tool-result" as const,
  toolCallId: id,
  toolName: "start_background_task",
  output: { type: "json" as const, value: {} },
});

/** The role sequence a strict template checks, with merged texts. */
const shape = (p: LanguageModelV3Prompt) =>
  p.map(
    (m) =>
      `${m.role}:${m.role === "system" ? m.content : m.content.map((c) => (c.type === "text" ? c.text : c.type)).join("|")}`,
  );

describe("alternateRoles", () => {
  it("merges a failed turn's message with the next one: never two user messages in a row", () => {
    const out = alternateRoles([{ role: "system", content: "sys" }, user("hello"), user("research tides")]);
    expect(shape(out)).toEqual(["system:sys", "user:hello\n\nresearch tides"]);
  });

  it("merges an acknowledgement and a narration: never two assistant messages in a row", () => {
    const out = alternateRoles([
      user("research tides"),
      assistant("Started."),
      assistant("It finished."),
      user("thanks"),
    ]);
    expect(shape(out)).toEqual(["user:research tides", "assistant:Started.\n\nIt finished.", "user:thanks"]);
  });

  it("keeps tool results right after their calls and drops orphans on either side", () => {
    const out = alternateRoles([
      user("go"),
      { role: "assistant", content: [{ type: "text", text: "On it." }, call("c1"), call("c2")] },
      { role: "tool", content: [result("c1")] },
      { role: "tool", content: [result("c2"), result("zz")] },
      assistant("Both are running."),
      { role: "tool", content: [result("c9")] },
      { role: "assistant", content: [call("c3")] },
      user("ok"),
    ]);
    expect(shape(out)).toEqual([
      "user:go",
      "assistant:On it.|tool-call|tool-call",
      "tool:tool-result|tool-result",
      "assistant:Both are running.",
      "user:ok",
    ]);
    expect(out[2].role === "tool" && out[2].content.map((p) => (p.type === "tool-result" ? p.toolCallId : ""))).toEqual(
      ["c1", "c2"],
    );
  });

  it("starts with a user turn and keeps one system message first", () => {
    const out = alternateRoles([
      assistant("cut off"),
      { role: "system", content: "a" },
      user("hi"),
      { role: "system", content: "b" },
      assistant("hello"),
    ]);
    expect(shape(out)).toEqual(["system:a\n\nb", "user:hi", "assistant:hello"]);
  });

  it("drops empty messages before merging their neighbours", () => {
    const out = alternateRoles([user("a"), assistant("  "), user("b")]);
    expect(shape(out)).toEqual(["user:a\n\nb"]);
  });

  it("leaves an alternating prompt as it is", () => {
    const prompt: LanguageModelV3Prompt = [{ role: "system", content: "s" }, user("a"), assistant("b"), user("c")];
    expect(alternateRoles(prompt)).toEqual(prompt);
  });
});
