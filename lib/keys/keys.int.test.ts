import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as keysRoute from "@/app/api/keys/route";
import * as searchRoute from "@/app/api/ap/threads/search/route";
import { handleAuthRequest } from "@/lib/auth/handler";
import { setPasswordResetMailer, type PasswordResetMail } from "@/lib/auth/reset-mail";
import { getDb } from "@/lib/db/client";
import { db } from "@/lib/db/kysely";
import { sql } from "kysely";
import { call, ORIGIN, signUp, waitFor, type TestUser } from "@/tests/helpers";

/** The password tests/helpers.ts signs every account up with. */
const PASSWORD = "correct horse battery";
const resetMails: PasswordResetMail[] = [];

beforeAll(() => {
  // The reset link is caught here instead of mailed: what is under test is what a reset does to keys.
  setPasswordResetMailer(async (mail) => void resetMails.push(mail));
});
afterAll(() => setPasswordResetMailer(async () => {}));

async function createKey(user: TestUser, body: Record<string, unknown>) {
  return call(keysRoute.POST, { user, body: { name: "supervisor", ...body } });
}

async function mint(
  user: TestUser,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; key: string; expiresAt: string | null }> {
  const r = await createKey(user, { password: PASSWORD, ...extra });
  expect(r.status).toBe(201);
  return r.json;
}

/** A program on /api/ap with the key and no cookie. */
const apStatus = async (key: string) =>
  (await call(searchRoute.POST, { body: {}, headers: { "x-api-key": key } })).status;

function auth(path: string, body: unknown, cookie?: string): Promise<Response> {
  const headers: Record<string, string> = { origin: ORIGIN, "content-type": "application/json" };
  if (cookie) headers.cookie = cookie;
  return handleAuthRequest(
    new Request(`${ORIGIN}/api/auth${path}`, { method: "POST", headers, body: JSON.stringify(body) }),
  );
}

describe("POST /api/keys asks for the account's password", () => {
  it("missing → 400 naming password, wrong → 403 forbidden, right → 201; a session alone mints nothing", async () => {
    const u = await signUp("KeyPassword");
    const missing = await createKey(u, {});
    expect(missing.status).toBe(400);
    expect(missing.json.error.field).toBe("password");
    const wrong = await createKey(u, { password: "not my password at all" });
    expect(wrong.status).toBe(403);
    expect(wrong.json.error.code).toBe("forbidden");
    expect(await getDb().apiKey.count({ where: { ownerId: u.id } })).toBe(0);

    const ok = await createKey(u, { password: PASSWORD });
    expect(ok.status).toBe(201);
    expect(Object.keys(ok.json).sort()).toEqual([
      "createdAt",
      "expiresAt",
      "id",
      "key",
      "lastUsedAt",
      "name",
      "prefix",
    ]);
    expect(ok.json.expiresAt).toBeNull();
    expect(await apStatus(ok.json.key)).toBe(200);
  });

  it("bad expiresInDays is a 400 naming it", async () => {
    const u = await signUp("KeyExpiryInput");
    for (const expiresInDays of [0, 1.5, -3, 100_000, "30"]) {
      const r = await createKey(u, { password: PASSWORD, expiresInDays });
      expect(r.status, String(expiresInDays)).toBe(400);
      expect(r.json.error.field).toBe("expiresInDays");
    }
  });
});

describe("key expiry", () => {
  it("a key with expiresInDays carries its expiry in the list, works until then, and is refused by /api/ap after", async () => {
    const u = await signUp("KeyExpiry");
    const {
      rows: [{ now }],
    } = await sql<{ now: Date }>`SELECT now() AS now`.execute(db());
    const k = await mint(u, { expiresInDays: 30 });
    const forever = await mint(u, { name: "forever" });
    const days = (new Date(k.expiresAt!).getTime() - now.getTime()) / 86_400_000;
    expect(days).toBeGreaterThan(29.99);
    expect(days).toBeLessThan(30.01);
    const list = await call(keysRoute.GET, { user: u });
    const byId = new Map(
      (list.json.keys as { id: string; expiresAt: string | null }[]).map((x) => [x.id, x.expiresAt]),
    );
    expect(byId.get(k.id)).toBe(k.expiresAt);
    expect(byId.get(forever.id)).toBeNull();
    expect(await apStatus(k.key)).toBe(200);

    // Thirty days later, by the database clock that set the expiry.
    await db()
      .updateTable("api_key")
      .set({ expiresAt: sql<Date>`now() - interval '1 second'` })
      .where("id", "=", k.id)
      .execute();
    expect(await apStatus(k.key)).toBe(401);
    expect(await apStatus(forever.key)).toBe(200);
  });
});

describe("a new password ends every key", () => {
  it("change-password revokes (deletes) all keys of the account, and only that account's", async () => {
    const u = await signUp("KeyChange");
    const other = await signUp("KeyBystander");
    const a = await mint(u);
    const b = await mint(u, { name: "second", expiresInDays: 90 });
    const theirs = await mint(other);

    // A wrong current password changes nothing, keys included.
    const refused = await auth(
      "/change-password",
      { currentPassword: "wrong password here", newPassword: "a brand new lantern 42" },
      u.cookie,
    );
    expect(refused.status).toBe(400);
    expect(await apStatus(a.key)).toBe(200);

    const res = await auth(
      "/change-password",
      { currentPassword: PASSWORD, newPassword: "a brand new lantern 42" },
      u.cookie,
    );
    expect(res.status).toBe(200);
    expect(await apStatus(a.key)).toBe(401);
    expect(await apStatus(b.key)).toBe(401);
    expect(await getDb().apiKey.count({ where: { ownerId: u.id } })).toBe(0);
    expect((await call(keysRoute.GET, { user: u })).json.keys).toEqual([]);
    expect(await apStatus(theirs.key)).toBe(200);
  });

  it("a password reset revokes (deletes) all keys of the account", async () => {
    const u = await signUp("KeyReset");
    const k = await mint(u);
    const asked = await auth("/request-password-reset", { email: u.email, redirectTo: `${ORIGIN}/reset-password` });
    expect(asked.status).toBe(200);
    const mail = await waitFor(async () => resetMails.find((m) => m.user.id === u.id), 10_000, "reset link");
    const token = new URL(mail.url).pathname.split("/").pop()!;
    expect(await apStatus(k.key)).toBe(200);

    const res = await auth("/reset-password", { token, newPassword: "a brand new lantern 42" });
    expect(res.status).toBe(200);
    expect(await apStatus(k.key)).toBe(401);
    expect(await getDb().apiKey.count({ where: { ownerId: u.id } })).toBe(0);
  });
});
