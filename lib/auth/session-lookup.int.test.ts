import { describe, expect, it } from "vitest";
import { statementsOf } from "@/tests/statements";
import { getAuth, userFromHeaders } from "@/lib/auth/auth";
import { getDb } from "@/lib/db/client";
import { ORIGIN, signUp, type TestUser } from "@/tests/helpers";

const DAY = 24 * 60 * 60 * 1000;

/** How many statements this process sends while `fn` runs. */
async function counted<T>(fn: () => Promise<T>): Promise<{ result: T; statements: number }> {
  const { result, statements } = await statementsOf(fn);
  return { result, statements: statements.length };
}

const headersOf = (cookie: string) => new Headers({ cookie });
const sessionOf = (u: TestUser) => getDb().session.findFirstOrThrow({ where: { userId: u.id } });
/** What better-auth itself answers for these headers. */
const betterAuth = async (cookie: string) => {
  const s = await getAuth().api.getSession({ headers: headersOf(cookie) });
  return s && { id: s.user.id, name: s.user.name, email: s.user.email, sessionId: s.session.id };
};

describe("the session lookup of every request", () => {
  it("a live session: the same user as better-auth's, in one statement", async () => {
    const u = await signUp("Lookup live");
    const { result, statements } = await counted(() => userFromHeaders(headersOf(u.cookie)));
    expect(statements).toBe(1);
    expect(result).toEqual(await betterAuth(u.cookie));
    expect(result).toMatchObject({ id: u.id, email: u.email, sessionId: (await sessionOf(u)).id });
  });

  it("a signed-out or revoked session is refused on the next request", async () => {
    const u = await signUp("Lookup out");
    expect(await userFromHeaders(headersOf(u.cookie))).not.toBeNull();
    const out = await getAuth().handler(
      new Request(`${ORIGIN}/api/auth/sign-out`, { method: "POST", headers: { cookie: u.cookie, origin: ORIGIN } }),
    );
    expect(out.status).toBe(200);
    expect(await userFromHeaders(headersOf(u.cookie))).toBeNull();

    const v = await signUp("Lookup revoked");
    await getDb().session.deleteMany({ where: { userId: v.id } });
    expect(await userFromHeaders(headersOf(v.cookie))).toBeNull();
  });

  it("a forged or unsigned cookie is nobody, without asking the database", async () => {
    const u = await signUp("Lookup forged");
    const [name, value] = u.cookie.split("=");
    const decoded = decodeURIComponent(value);
    const token = decoded.slice(0, decoded.lastIndexOf("."));
    const signature = decoded.slice(decoded.lastIndexOf(".") + 1);
    const flipped = `${signature[0] === "A" ? "B" : "A"}${signature.slice(1)}`;
    for (const cookie of [
      `${name}=${token}`,
      `${name}=${encodeURIComponent(`${token}.${flipped}`)}`,
      `${name}=${encodeURIComponent(`x${token}.${signature}`)}`,
      "",
    ]) {
      const { result, statements } = await counted(() => userFromHeaders(headersOf(cookie)));
      expect(result, cookie).toBeNull();
      expect(statements, cookie).toBe(0);
      expect(await betterAuth(cookie), cookie).toBeNull();
    }
  });

  it("an expired session is refused and better-auth deletes it; a refresh-due one is answered and extended", async () => {
    const u = await signUp("Lookup expired");
    await getDb().session.updateMany({ where: { userId: u.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await userFromHeaders(headersOf(u.cookie))).toBeNull();
    expect(await getDb().session.count({ where: { userId: u.id } })).toBe(0);

    // better-auth extends a session used more than updateAge (a day) after it was last extended (7 days' life).
    const v = await signUp("Lookup refresh");
    const due = new Date(Date.now() + 5 * DAY);
    await getDb().session.updateMany({ where: { userId: v.id }, data: { expiresAt: due } });
    expect(await userFromHeaders(headersOf(v.cookie))).toMatchObject({ id: v.id });
    expect((await sessionOf(v)).expiresAt.getTime()).toBeGreaterThan(due.getTime() + DAY);
  });

  it("a repeated session cookie is better-auth's to read", async () => {
    const u = await signUp("Lookup twice");
    const v = await signUp("Lookup other");
    const cookie = `${u.cookie}; ${v.cookie}`;
    expect(await userFromHeaders(headersOf(cookie))).toEqual(await betterAuth(cookie));
  });
});
