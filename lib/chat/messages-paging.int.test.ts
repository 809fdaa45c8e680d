import { describe, expect, it } from "vitest";
import { transaction } from "@/lib/db/kysely";
import * as messagesRoute from "@/app/api/conversations/[id]/messages/route";
import { PG_INT_MAX } from "@/lib/contract/schemas";
import type { PublicMessage } from "@/lib/contract/shapes";
import { call, createConversationFor, signUp, type TestUser } from "@/tests/helpers";
import { appendMessage } from "./append-message";

async function seed(user: TestUser, conversationId: string, n: number): Promise<number[]> {
  const visible: number[] = [];
  await transaction(async (tx) => {
    for (let i = 1; i <= n; i++) {
      // Every seventh is a hidden prompt: it takes a seq but is never served.
      const m = await appendMessage(tx, {
        conversationId,
        ownerId: user.id,
        kind: i % 2 ? "user" : "assistant",
        content: `m${i}`,
        hidden: i % 7 === 0,
      });
      if (!m.hidden) visible.push(m.seq);
    }
  });
  return visible;
}

const get = (user: TestUser, id: string, query: string) =>
  call(messagesRoute.GET, { user, path: `/api/conversations/${id}/messages${query}`, params: { id } });

describe("GET /api/conversations/:id/messages?before=", () => {
  it("pages backwards from the newest without gaps or repeats; after and no-param reads are unchanged", async () => {
    const u = await signUp("Pager");
    const conv = await createConversationFor(u);
    const visible = await seed(u, conv, 130);

    const pages: PublicMessage[][] = [];
    let before = PG_INT_MAX;
    for (let i = 0; i < 10; i++) {
      const r = await get(u, conv, `?before=${before}&limit=50`);
      expect(r.status).toBe(200);
      const page = r.json.messages as PublicMessage[];
      pages.push(page);
      const seqs = page.map((m) => m.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(seqs.every((s) => s < before)).toBe(true);
      if (!r.json.hasOlder) break;
      expect(page).toHaveLength(50);
      before = seqs[0];
    }
    expect(pages.map((p) => p.length)).toEqual([50, 50, visible.length - 100]);
    expect(
      pages
        .reverse()
        .flat()
        .map((m) => m.seq),
    ).toEqual(visible);

    // The page just before a seq in the middle, and one that ends exactly at the first message.
    const mid = await get(u, conv, `?before=${visible[60]}&limit=10`);
    expect(mid.json.messages.map((m: PublicMessage) => m.seq)).toEqual(visible.slice(50, 60));
    expect(mid.json.hasOlder).toBe(true);
    const start = await get(u, conv, `?before=${visible[10]}&limit=10`);
    expect(start.json.messages.map((m: PublicMessage) => m.seq)).toEqual(visible.slice(0, 10));
    expect(start.json.hasOlder).toBe(false);
    expect((await get(u, conv, `?before=1`)).json).toEqual({ messages: [], hasOlder: false });

    // The forward reads keep their shape.
    const all = await get(u, conv, "");
    expect(Object.keys(all.json)).toEqual(["messages"]);
    expect(all.json.messages.map((m: PublicMessage) => m.seq)).toEqual(visible);
    const after = await get(u, conv, `?after=${visible[99]}&limit=5`);
    expect(after.json).toEqual({ messages: all.json.messages.slice(100, 105) });
  });

  it("bad or combined cursors are 400 naming the field; another account's conversation is 404", async () => {
    const u = await signUp("PagerBad");
    const conv = await createConversationFor(u);
    for (const [query, field] of [
      ["?before=0", "before"],
      ["?before=-1", "before"],
      ["?before=1.5", "before"],
      [`?before=${PG_INT_MAX + 1}`, "before"],
      ["?before=5&after=2", "before"],
      ["?before=5&limit=501", "limit"],
    ]) {
      const r = await get(u, conv, query);
      expect(r.status, query).toBe(400);
      expect(r.json.error.field, query).toBe(field);
    }
    const other = await signUp("PagerOther");
    expect((await get(other, conv, `?before=${PG_INT_MAX}`)).status).toBe(404);
  });
});
