import { describe, expect, it } from "vitest";
import type { Message } from "@/lib/db/generated/client.ts";
import { messageMetaOf, toPublicMessage } from "@/lib/contract/message";

const message = (o: Partial<Message>): Message =>
  ({
    id: "m1",
    conversationId: "c1",
    ownerId: "owner-secret",
    seq: 1,
    kind: "assistant",
    content: "hi",
    hidden: false,
    taskId: null,
    runId: null,
    publicationId: null,
    meta: null,
    clientMessageId: null,
    createdAt: new Date("2026-01-01T00:00:00.000Z"),
    ...o,
  }) as Message;

describe("message meta on the way out", () => {
  it("keeps each kind's contract fields", () => {
    const delivery = {
      mode: "at",
      dueAt: "2026-01-01T00:10:00.000Z",
      dueInSeconds: 600,
      reportIfUnfinished: false,
      allowOvertime: true,
      source: "picker",
    } as const;
    expect(messageMetaOf("user", { delivery })).toEqual({ delivery });
    expect(messageMetaOf("progress", { step: null, title: "T" })).toEqual({ step: null, title: "T" });
    expect(messageMetaOf("body", { partial: true, version: 2, title: "T" })).toEqual({
      partial: true,
      version: 2,
      title: "T",
    });
    const failed = {
      status: "failed",
      completedAt: "2026-01-01T00:00:00.000Z",
      title: "T",
      errorCode: "timeout",
      error: "x",
    } as const;
    expect(messageMetaOf("terminal", failed)).toEqual(failed);
    const notice = {
      noticeId: "n",
      noticeKey: "due",
      outcome: "missed",
      taskStatus: "running",
      title: "T",
      dueAt: null,
    } as const;
    expect(messageMetaOf("notice", notice)).toEqual(notice);
  });

  it("is a whitelist: fields no contract names are dropped", () => {
    expect(messageMetaOf("progress", { step: 1, title: "T", remoteRef: "REMOTE" })).toEqual({ step: 1, title: "T" });
    // A hidden narration prompt's frozen event never reaches a client, even through a user message's meta.
    expect(messageMetaOf("user", { narrationEvent: { taskId: "t" } })).toEqual({});
    expect(messageMetaOf("assistant", { anything: 1 })).toBeNull();
  });

  it("is null when none was written or the stored one does not fit its kind", () => {
    expect(messageMetaOf("user", null)).toBeNull();
    expect(messageMetaOf("terminal", { status: "exploded", completedAt: "x", title: "T" })).toBeNull();
    expect(messageMetaOf("notice", { outcome: "done", noticeKey: "final" })).toBeNull();
  });

  it("toPublicMessage projects the meta of the message's kind and nothing of the row beyond the shape", () => {
    const m = toPublicMessage(message({ kind: "body", meta: { partial: false, version: 3, title: "T", sha: "x" } }));
    expect(m).toEqual({
      id: "m1",
      conversationId: "c1",
      seq: 1,
      kind: "body",
      content: "hi",
      taskId: null,
      runId: null,
      publicationId: null,
      meta: { partial: false, version: 3, title: "T" },
      clientMessageId: null,
      createdAt: "2026-01-01T00:00:00.000Z",
    });
    if (m.kind === "body") expect(m.meta?.version).toBe(3);
  });
});
