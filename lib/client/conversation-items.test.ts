import { describe, expect, it } from "vitest";
import type { PublicMessage } from "@/lib/contract/shapes";
import { buildConversationItems } from "./conversation-items";
import type { OutgoingMessage } from "./outbox";

const message = (seq: number, kind: PublicMessage["kind"] = "assistant", extra: Partial<PublicMessage> = {}) =>
  ({
    id: `m${seq}`,
    conversationId: "c1",
    seq,
    kind,
    content: `#${seq}`,
    meta: null,
    taskId: null,
    runId: null,
    publicationId: null,
    clientMessageId: null,
    createdAt: new Date(seq * 1000).toISOString(),
    ...extra,
  }) as PublicMessage;

const outgoing = (
  id: string,
  afterSeq: number,
  status: OutgoingMessage["status"] = "failed",
  afterRuns: string[] = [],
): OutgoingMessage => ({
  clientMessageId: id,
  conversationId: "c1",
  content: id,
  status,
  error: null,
  createdAt: new Date(0).toISOString(),
  afterSeq,
  afterRuns,
});

const keys = (items: ReturnType<typeof buildConversationItems>) => items.map((i) => i.key);

describe("buildConversationItems", () => {
  it("keeps an unsent message where it was written, above what arrived after it", () => {
    const items = buildConversationItems(
      [message(1, "user"), message(2), message(3, "notice"), message(4, "user")],
      [],
      [outgoing("a", 2), outgoing("b", 2)],
    );
    expect(keys(items)).toEqual(["m1", "m2", "out:a", "out:b", "m3", "m4"]);
  });

  it("keeps a reply that was streaming in when the message was written above it once the reply is stored", () => {
    const reply = message(2, "assistant", { runId: "r1" });
    const items = buildConversationItems(
      [message(1, "user"), reply, message(3, "notice")],
      [],
      [outgoing("a", 1, "failed", ["r1"])],
    );
    expect(keys(items)).toEqual(["m1", "m2", "out:a", "m3"]);
  });

  it("puts sends written after everything at the end, and drops one once its stored copy is in", () => {
    const stored = message(3, "user", { clientMessageId: "a" });
    expect(keys(buildConversationItems([message(1), message(2)], [], [outgoing("a", 2, "sending")]))).toEqual([
      "m1",
      "m2",
      "out:a",
    ]);
    expect(keys(buildConversationItems([message(1), message(2), stored], [], [outgoing("a", 2, "sending")]))).toEqual([
      "m1",
      "m2",
      "m3",
    ]);
    expect(keys(buildConversationItems([], [], [outgoing("a", 0)]))).toEqual(["out:a"]);
  });

  it("folds a task's progress into one entry at its latest update", () => {
    const items = buildConversationItems(
      [message(1, "progress", { taskId: "t" }), message(2), message(3, "progress", { taskId: "t" })],
      [],
      [],
    );
    expect(items.map((i) => i.type)).toEqual(["message", "progress"]);
    expect(items[1]).toMatchObject({ key: "progress:t", active: true });
  });
});
