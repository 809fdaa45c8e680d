import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import type { PublicConversation } from "@/lib/contract/shapes";
import { cachedTask, faviconHref, noteTaskUpdate, tabTitle, unreadTotal } from "./away";
import { applyMessageToConversation, mergeConversationSnapshot, newer, queryKeys, sortConversations } from "./cache";
import { taskFixture } from "./task-fixture";
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
  it("counts each message once, not the user's own, and a user turn reads everything", () => {
    let c = conv("a", { lastReadSeq: 2, lastSeq: 2 });
    c = applyMessageToConversation(c, { seq: 3, kind: "assistant" });
    c = applyMessageToConversation(c, { seq: 3, kind: "assistant" }); // a replay
    c = applyMessageToConversation(c, { seq: 4, kind: "body" });
    c = applyMessageToConversation(c, { seq: 5, kind: "progress" }); // not news on its own
    expect(c).toMatchObject({ unread: 2, lastSeq: 5, lastReadSeq: 2 });
    c = applyMessageToConversation(c, { seq: 6, kind: "user" });
    expect(c).toMatchObject({ unread: 0, lastSeq: 6, lastReadSeq: 6 });
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
    const list = [conv("old-pinned", { pinned: true }), conv("new", { updatedAt: "2026-11-30T11:00:00.000Z" }), conv("pinned-new", { pinned: true, updatedAt: "2026-11-30T10:30:00.000Z" })];
    expect(sortConversations(list).map((c) => c.id)).toEqual(["pinned-new", "old-pinned", "new"]);
  });
});

describe("a task finishing in another chat", () => {
  it("raises one toast with a link to its chat, only on the transition", () => {
    const qc = new QueryClient();
    qc.setQueryData(queryKeys.conversations, [conv("c2", { title: "Batteries" })]);
    const running = taskFixture("t1", "running", 1, { conversationId: "c2", title: "Cobalt outlook" });
    qc.setQueryData(queryKeys.taskList(null), [running]);
    for (const t of getToasts()) dismissToast(t.id);

    expect(cachedTask(qc, "t1")?.status).toBe("running");
    const done = { ...running, status: "succeeded" as const, updatedAt: new Date().toISOString(), completedAt: new Date().toISOString() };
    noteTaskUpdate(qc, done, running);
    noteTaskUpdate(qc, { ...done, updatedAt: new Date(Date.now() + 1000).toISOString() }, done);
    expect(getToasts()).toHaveLength(1);
    expect(getToasts()[0]).toMatchObject({ key: "toastTaskSucceeded", vars: { title: "Cobalt outlook", chat: "Batteries" }, link: { href: "/c/c2" } });

    // Heard of for the first time long after it ended: history, not news.
    const old = taskFixture("t2", "failed", 1, { conversationId: "c2", title: "Old" });
    noteTaskUpdate(qc, { ...old, completedAt: "2020-01-01T00:00:00.000Z" }, undefined);
    // A chat that is gone (deleted, its tasks cancelled) raises nothing.
    const orphan = taskFixture("t3", "running", 1, { conversationId: "gone", title: "Orphan" });
    noteTaskUpdate(qc, { ...orphan, status: "cancelled" }, orphan);
    expect(getToasts()).toHaveLength(1);
  });
});
