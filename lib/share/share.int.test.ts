import { describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/client";
import { db } from "@/lib/db/kysely";
import { sql } from "kysely";
import * as sharesRoute from "@/app/api/publications/[id]/shares/route";
import * as shareRoute from "@/app/api/shares/[id]/route";
import * as conversationRoute from "@/app/api/conversations/[id]/route";
import { call, createConversationFor, signUp, type TestUser } from "@/tests/helpers";
import { hashShareToken } from "./token";
import { readSharedReport } from "./read-shared";
import { MAX_SHARES_PER_ACCOUNT, SHARES_PER_MINUTE } from "./create-share";

async function publish(
  user: TestUser,
  content: string,
  version = 1,
): Promise<{ conversationId: string; publicationId: string }> {
  const conversationId = await createConversationFor(user, "Private chat title");
  const task = await getDb().task.create({
    data: { ownerId: user.id, conversationId, title: "EV market", prompt: "secret prompt" },
  });
  const pub = await getDb().publication.create({
    data: { taskId: task.id, conversationId, ownerId: user.id, version, partial: false, content, sha256: "x" },
  });
  return { conversationId, publicationId: pub.id };
}

const create = (user: TestUser, publicationId: string) =>
  call(sharesRoute.POST, {
    user,
    method: "POST",
    path: `/api/publications/${publicationId}/shares`,
    params: { id: publicationId },
  });

describe("report share links", () => {
  it("opens the report by a random token stored hashed, only while live, and shows nothing else", async () => {
    const owner = await signUp("Sharer");
    const { publicationId } = await publish(owner, "# EV market\n\n## Findings\n\nBody text.");

    // Off by default: nothing is shared until the owner asks.
    const none = await call(sharesRoute.GET, {
      user: owner,
      path: `/api/publications/${publicationId}/shares`,
      params: { id: publicationId },
    });
    expect(none.json).toEqual({ shares: [] });

    const a = await create(owner, publicationId);
    const b = await create(owner, publicationId);
    expect(a.status).toBe(201);
    expect(a.json.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.json.path).toBe(`/share/${a.json.token}`);
    expect(b.json.token).not.toBe(a.json.token);

    // Only the hash is stored.
    const rows = await getDb().reportShare.findMany({ where: { ownerId: owner.id } });
    expect(rows.map((r) => r.hash).sort()).toEqual([hashShareToken(a.json.token), hashShareToken(b.json.token)].sort());
    expect(JSON.stringify(rows)).not.toContain(a.json.token);

    // The listing never repeats a token.
    const list = await call(sharesRoute.GET, {
      user: owner,
      path: `/api/publications/${publicationId}/shares`,
      params: { id: publicationId },
    });
    expect(list.json.shares).toHaveLength(2);
    expect(JSON.stringify(list.json)).not.toContain(a.json.token);

    // The public read is the report only: no account, conversation or prompt.
    const shared = await readSharedReport(a.json.token);
    expect(shared).toEqual({
      title: "EV market",
      content: "# EV market\n\n## Findings\n\nBody text.",
      version: 1,
      partial: false,
      createdAt: expect.any(String),
    });
    const text = JSON.stringify(shared);
    for (const secret of [owner.email, owner.id, "Private chat title", "secret prompt"])
      expect(text).not.toContain(secret);

    // Unknown, malformed and one-character-off tokens open nothing.
    expect(await readSharedReport("nope")).toBeNull();
    expect(await readSharedReport(`${a.json.token.slice(0, -1)}${a.json.token.endsWith("A") ? "B" : "A"}`)).toBeNull();

    // Revoking one link closes it and leaves the other open.
    const del = await call(shareRoute.DELETE, {
      user: owner,
      method: "DELETE",
      path: `/api/shares/${a.json.id}`,
      params: { id: a.json.id },
    });
    expect(del.status).toBe(204);
    expect(await readSharedReport(a.json.token)).toBeNull();
    expect(await readSharedReport(b.json.token)).not.toBeNull();
    const again = await call(shareRoute.DELETE, {
      user: owner,
      method: "DELETE",
      path: `/api/shares/${a.json.id}`,
      params: { id: a.json.id },
    });
    expect(again.status).toBe(404);
  });

  it("is owner-only: another account's publication and share are 404, and a deleted conversation closes its links", async () => {
    const owner = await signUp("Owner");
    const other = await signUp("Other");
    const { conversationId, publicationId } = await publish(owner, "# R\n\ntext");

    expect((await create(other, publicationId)).status).toBe(404);
    const list = await call(sharesRoute.GET, {
      user: other,
      path: `/api/publications/${publicationId}/shares`,
      params: { id: publicationId },
    });
    expect(list.status).toBe(404);
    expect(
      (
        await call(sharesRoute.POST, {
          method: "POST",
          path: `/api/publications/${publicationId}/shares`,
          params: { id: publicationId },
        })
      ).status,
    ).toBe(401);

    const link = await create(owner, publicationId);
    const foreignRevoke = await call(shareRoute.DELETE, {
      user: other,
      method: "DELETE",
      path: `/api/shares/${link.json.id}`,
      params: { id: link.json.id },
    });
    expect(foreignRevoke.status).toBe(404);
    expect(await readSharedReport(link.json.token)).not.toBeNull();

    const gone = await call(conversationRoute.DELETE, {
      user: owner,
      method: "DELETE",
      path: `/api/conversations/${conversationId}`,
      params: { id: conversationId },
    });
    expect(gone.status).toBe(204);
    expect(await readSharedReport(link.json.token)).toBeNull();
    expect((await create(owner, publicationId)).status).toBe(404);
    const listGone = await call(sharesRoute.GET, {
      user: owner,
      path: `/api/publications/${publicationId}/shares`,
      params: { id: publicationId },
    });
    expect(listGone.status).toBe(404);
  });

  it("bounds link creation per minute and per account with 429 and Retry-After", async () => {
    const owner = await signUp("Bounded");
    const { publicationId } = await publish(owner, "# R");
    for (let i = 0; i < SHARES_PER_MINUTE; i++) expect((await create(owner, publicationId)).status).toBe(201);
    const limited = await create(owner, publicationId);
    expect(limited.status).toBe(429);
    expect(limited.json.error.code).toBe("rate_limited");
    expect(Number(limited.res.headers.get("retry-after"))).toBeGreaterThan(0);

    // Age the links out of the minute window to reach the account cap.
    await db()
      .updateTable("report_share")
      .set({ createdAt: sql<Date>`now() - interval '2 minutes'` })
      .where("ownerId", "=", owner.id)
      .execute();
    const { hash: _unused, ...template } = await getDb().reportShare.findFirstOrThrow({ where: { ownerId: owner.id } });
    void _unused;
    await getDb().reportShare.createMany({
      data: Array.from({ length: MAX_SHARES_PER_ACCOUNT - SHARES_PER_MINUTE }, (_, i) => ({
        ownerId: template.ownerId,
        publicationId: template.publicationId,
        hash: `filler-${owner.id}-${i}`,
        createdAt: new Date(Date.now() - 120_000),
      })),
    });
    const full = await create(owner, publicationId);
    expect(full.status).toBe(429);
    expect(full.json.error.code).toBe("quota_exceeded");
    expect(full.res.headers.get("retry-after")).toBe("60");
  });
});
