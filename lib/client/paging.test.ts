import { QueryClient } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { PublicMessage } from "@/lib/contract/shapes";
import { queryKeys, rememberFeedMessage, upsertMessages, type MessagePaging } from "./cache";
import { FIRST_PAGE_SIZE, fetchMessageWindow, fetchOlderMessages } from "./queries";

// A conversation on a fake server: seqs 1..n, every fifth a hidden prompt that is never served.
let stored: PublicMessage[] = [];
let requests: string[] = [];
let lastSeq = 0;

function message(seq: number): PublicMessage {
  return {
    id: `m${seq}`,
    conversationId: "c1",
    seq,
    kind: "user",
    content: `#${seq}`,
    meta: null,
    taskId: null,
    runId: null,
    publicationId: null,
    clientMessageId: null,
    createdAt: new Date(seq * 1000).toISOString(),
  } as PublicMessage;
}

function add(n: number): PublicMessage[] {
  const added: PublicMessage[] = [];
  for (let i = 0; i < n; i++) {
    lastSeq += 1;
    if (lastSeq % 5 === 0) continue;
    const m = message(lastSeq);
    stored.push(m);
    added.push(m);
  }
  return added;
}

beforeEach(() => {
  stored = [];
  requests = [];
  lastSeq = 0;
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string) => {
      requests.push(url);
      const q = new URL(url, "http://x").searchParams;
      const limit = Number(q.get("limit") ?? 500);
      let body: unknown;
      if (q.has("before")) {
        const older = stored.filter((m) => m.seq < Number(q.get("before")));
        body = { messages: older.slice(-limit), hasOlder: older.length > limit };
      } else {
        body = { messages: stored.filter((m) => m.seq > Number(q.get("after") ?? 0)).slice(0, limit) };
      }
      return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
    }),
  );
});
afterEach(() => vi.unstubAllGlobals());

const seqs = (qc: QueryClient) => (qc.getQueryData<PublicMessage[]>(queryKeys.messages("c1")) ?? []).map((m) => m.seq);
const visibleFrom = (seq: number) => stored.filter((m) => m.seq >= seq).map((m) => m.seq);

async function refetch(qc: QueryClient) {
  qc.setQueryData(queryKeys.messages("c1"), await fetchMessageWindow(qc, "c1"));
}

describe("conversation window: newest page first, older on demand, live patches in between", () => {
  it("opens at the newest page, then pages back to the first message without gaps or repeats", async () => {
    add(300);
    const qc = new QueryClient();
    await refetch(qc);
    expect(seqs(qc)).toHaveLength(FIRST_PAGE_SIZE);
    expect(seqs(qc)).toEqual(stored.slice(-FIRST_PAGE_SIZE).map((m) => m.seq));
    expect(qc.getQueryData<MessagePaging>(queryKeys.messagePaging("c1"))).toEqual({ through: 299, hasOlder: true });
    expect(requests).toHaveLength(1);

    let pages = 0;
    while (await fetchOlderMessages(qc, "c1")) pages++;
    expect(pages).toBe(Math.ceil(stored.length / FIRST_PAGE_SIZE) - 1);
    expect(seqs(qc)).toEqual(stored.map((m) => m.seq));
    expect(qc.getQueryData<MessagePaging>(queryKeys.messagePaging("c1"))?.hasOlder).toBe(false);
    expect(await fetchOlderMessages(qc, "c1")).toBe(false);
  });

  it("a conversation's first feed message that lands while the first page is in flight is kept", async () => {
    // The server read the (empty) conversation before the message committed; the feed delivers it
    // before the page arrives, when nothing for this conversation was remembered yet.
    const first = { ...message(1), id: "fresh-1", conversationId: "fresh" } as PublicMessage;
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => {
        rememberFeedMessage(first);
        return new Response(JSON.stringify({ messages: [], hasOlder: false }), {
          status: 200,
          headers: { "content-type": "application/json" },
        });
      }),
    );
    const qc = new QueryClient();
    const window = await fetchMessageWindow(qc, "fresh");
    expect(window.map((m) => m.id)).toEqual(["fresh-1"]);
  });

  it("a refetch after missed feed events fills the hole between the window and what the feed delivered", async () => {
    add(120);
    const qc = new QueryClient();
    await refetch(qc);
    const firstSeq = seqs(qc)[0];
    // Live: one message arrives on the feed; then a reset loses the next few, and one more arrives live.
    const [live] = add(1);
    rememberFeedMessage(live);
    upsertMessages(qc, "c1", [live]);
    add(6);
    const [after] = add(1);
    rememberFeedMessage(after);
    upsertMessages(qc, "c1", [after]);
    expect(seqs(qc).at(-1)).toBe(after.seq);
    await refetch(qc);
    expect(seqs(qc)).toEqual(visibleFrom(firstSeq));
    // Paging back still joins on.
    await fetchOlderMessages(qc, "c1");
    expect(seqs(qc)).toEqual(visibleFrom(seqs(qc)[0]));
    expect(seqs(qc)[0]).toBeLessThan(firstSeq);
  });

  it("concurrent loads of the same older page make one request; a window reloaded from scratch drops what it cannot vouch for", async () => {
    add(200);
    const qc = new QueryClient();
    await refetch(qc);
    requests = [];
    await Promise.all([fetchOlderMessages(qc, "c1"), fetchOlderMessages(qc, "c1"), fetchOlderMessages(qc, "c1")]);
    expect(requests).toHaveLength(1);
    expect(seqs(qc)).toEqual(visibleFrom(seqs(qc)[0]));

    // The paging state is gone (garbage-collected) while old messages linger: a fresh newest page must not be joined to them.
    add(100);
    qc.removeQueries({ queryKey: queryKeys.messagePaging("c1") });
    await refetch(qc);
    expect(seqs(qc)).toEqual(stored.slice(-FIRST_PAGE_SIZE).map((m) => m.seq));
  });
});
