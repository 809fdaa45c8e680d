import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import type { NoticeOutcome, PublicConversation, PublicMessage } from "@/lib/contract/shapes";
import { faviconHref, noteNotice, tabTitle, unreadTotal } from "./away";
import {
  applyMessageToConversation,
  mergeConversationSnapshot,
  newer,
  noteConversationMessage,
  queryKeys,
  sortConversations,
  touchConversation,
  upsertConversation,
} from "./cache";
import { dismissToast, getToasts } from "./toasts";

function conv(id: string, over: Partial<PublicConversation> = {}): PublicConversation {
  return {
    id,
    title: id,
    createdAt: "2026-11-30T10:00:00.000Z",
    updatedAt: "2026-11-30T10:00:00.000Z",
    pinned: false,
    unread: 0,
    lastReadSeq: 0,
    lastSeq: 0,
    ...over,
  };
}

const messageFixture = {
  id: "m",
  conversationId: "a",
  content: "",
  taskId: "t",
  runId: null,
  publicationId: null,
  clientMessageId: null,
  createdAt: "2026-11-30T10:00:01.000Z",
  meta: null,
} as const;

describe("tab title and favicon", () => {
  it("carry the conversation and the unread count", () => {
    expect(tabTitle("Cobalt", 0, "Herald")).toBe("Cobalt · Herald");
    expect(tabTitle("Cobalt", 3, "Herald")).toBe("(3) Cobalt · Herald");
    expect(tabTitle(null, 120, "Herald")).toBe("(99+) Herald");
    expect(unreadTotal([conv("a", { unread: 2 }), conv("b", { unread: 1 })])).toBe(3);
    expect(decodeURIComponent(faviconHref(1))).toContain("<circle");
    expect(decodeURIComponent(faviconHref(0))).not.toContain("<circle");
  });
});

describe("unread counting in the cache", () => {
  it("messages move the newest seq and a user turn reads everything; the count is the server's, announced once per moment", () => {
    const qc = new QueryClient();
    qc.setQueryData(queryKeys.conversations, [conv("a", { lastReadSeq: 2, lastSeq: 2 })]);
    const at = "2026-11-30T10:00:01.000Z";
    const list = () => qc.getQueryData<PublicConversation[]>(queryKeys.conversations)![0];
    // One task's result, terminal line, notice and narrating reply: four messages, one moment, which the
    // server announces right after the first (same commit, same updatedAt).
    for (const [seq, kind] of [
      [3, "body"],
      [4, "terminal"],
      [5, "notice"],
      [5, "notice"],
      [6, "assistant"],
    ] as const) {
      touchConversation(qc, "a", at);
      noteConversationMessage(qc, { ...messageFixture, seq, kind });
      expect(list().unread).toBe(seq === 3 ? 0 : 1);
      if (seq === 3) upsertConversation(qc, conv("a", { updatedAt: at, unread: 1, lastReadSeq: 2, lastSeq: 3 }));
    }
    expect(list()).toMatchObject({ unread: 1, lastSeq: 6, lastReadSeq: 2 });
    let c = applyMessageToConversation(list(), { seq: 7, kind: "user" });
    expect(c).toMatchObject({ unread: 0, lastSeq: 7, lastReadSeq: 7 });
    c = applyMessageToConversation(c, { seq: 8, kind: "assistant" });
    expect(c).toMatchObject({ unread: 0, lastSeq: 8 });
  });

  it("between copies of the same moment the read mark only moves forward", () => {
    const unread = conv("a", { unread: 2, lastReadSeq: 1, lastSeq: 3 });
    const read = conv("a", { unread: 0, lastReadSeq: 3, lastSeq: 3 });
    expect(newer(unread, read)).toMatchObject({ unread: 0, lastReadSeq: 3 });
    expect(newer(read, unread)).toBe(read);
    // A snapshot fetched before the read mark cannot bring the dot back.
    expect(mergeConversationSnapshot([read], [unread])[0]).toMatchObject({ unread: 0 });
    // Newer activity wins whole.
    const later = conv("a", { updatedAt: "2026-11-30T10:00:05.000Z", unread: 1, lastReadSeq: 3, lastSeq: 4 });
    expect(newer(read, later)).toBe(later);
  });

  it("sorts pinned first, then newest activity", () => {
    const list = [
      conv("old-pinned", { pinned: true }),
      conv("new", { updatedAt: "2026-11-30T11:00:00.000Z" }),
      conv("pinned-new", { pinned: true, updatedAt: "2026-11-30T10:30:00.000Z" }),
    ];
    expect(sortConversations(list).map((c) => c.id)).toEqual(["pinned-new", "old-pinned", "new"]);
  });
});

describe("a task's notice in another chat", () => {
  const notice = (
    id: string,
    conversationId: string,
    title: string,
    outcome: NoticeOutcome,
    createdAt = new Date().toISOString(),
  ): PublicMessage => ({
    ...messageFixture,
    id,
    conversationId,
    seq: 1,
    kind: "notice",
    createdAt,
    meta: { noticeId: id, noticeKey: "final", outcome, taskStatus: "succeeded", title, dueAt: null },
  });

  it("raises one toast per notice with a link to its chat; never twice, never for history or a deleted chat", () => {
    const qc = new QueryClient();
    qc.setQueryData(queryKeys.conversations, [conv("c2", { title: "Batteries" }), conv("c3", { title: "Tides" })]);
    for (const t of getToasts()) dismissToast(t.id);

    noteNotice(qc, notice("n1", "c2", "Cobalt outlook", "on_time"));
    noteNotice(qc, notice("n1", "c2", "Cobalt outlook", "on_time")); // a replay
    expect(getToasts()).toHaveLength(1);
    expect(getToasts()[0]).toMatchObject({
      key: "toastTaskSucceeded",
      vars: { title: "Cobalt outlook", chat: "Batteries" },
      link: { href: "/c/c2" },
    });

    // Heard of long after it was written: history, not news; a chat that is gone raises nothing.
    noteNotice(qc, notice("n2", "c2", "Old", "failed", "2020-01-01T00:00:00.000Z"));
    noteNotice(qc, notice("n3", "gone", "Orphan", "done"));
    expect(getToasts()).toHaveLength(1);

    // A chat named like its task is not named twice.
    noteNotice(qc, notice("n4", "c3", "tides", "failed"));
    expect(getToasts()[1]).toMatchObject({ key: "toastTaskFailedAlone", tone: "error", vars: { title: "tides" } });
    expect(getToasts()[1].vars).not.toHaveProperty("chat");
  });
});
