import { describe, expect, it } from "vitest";
import * as settingsRoute from "@/app/api/settings/route";
import { getDb } from "@/lib/db/client";
import { accountLanguage } from "./queries";
import { call, signUp } from "@/tests/helpers";

describe("GET/PATCH /api/settings", () => {
  it("needs a session", async () => {
    expect((await call(settingsRoute.GET)).status).toBe(401);
    expect((await call(settingsRoute.PATCH, { method: "PATCH", body: { language: "zh" } })).status).toBe(401);
  });

  it("defaults: the browser's language until the account chooses, UTC, email off; emailAvailable follows SMTP_URL", async () => {
    const u = await signUp("Defaults");
    const res = await call(settingsRoute.GET, { user: u, headers: { "accept-language": "zh-CN,zh;q=0.9" } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      language: "zh",
      timeZone: "UTC",
      emailNotices: "off",
      emailAvailable: false,
      emailVerified: false,
    });
    expect(
      (await call(settingsRoute.GET, { user: u, headers: { cookie: `${u.cookie}; herald-lang=en` } })).json.language,
    ).toBe("en");
    expect(await accountLanguage(u.id)).toBeNull();
  });

  it("PATCH is partial and owner-only; the chosen language beats the browser's", async () => {
    const a = await signUp("Owner");
    const b = await signUp("Bystander");
    const r1 = await call(settingsRoute.PATCH, { user: a, method: "PATCH", body: { language: "zh" } });
    expect(r1.status).toBe(200);
    expect(r1.json).toMatchObject({ language: "zh", timeZone: "UTC", emailNotices: "off" });
    const r2 = await call(settingsRoute.PATCH, {
      user: a,
      method: "PATCH",
      body: { timeZone: "Europe/Berlin", emailNotices: "all" },
    });
    expect(r2.json).toMatchObject({ language: "zh", timeZone: "Europe/Berlin", emailNotices: "all" });
    // A second device with an English browser still gets the account's language.
    expect((await call(settingsRoute.GET, { user: a, headers: { "accept-language": "en-US" } })).json.language).toBe(
      "zh",
    );
    expect(await accountLanguage(a.id)).toBe("zh");
    const other = await getDb().user.findUniqueOrThrow({ where: { id: b.id } });
    expect([other.language, other.timeZone, other.emailNotices]).toEqual([null, null, "off"]);
  });

  it("bad input is a 400 naming the field, and changes nothing", async () => {
    const u = await signUp("Validation");
    const cases: [unknown, string][] = [
      [{ language: "fr" }, "language"],
      [{ timeZone: "Mars/Olympus" }, "timeZone"],
      [{ timeZone: 5 }, "timeZone"],
      [{ emailNotices: "daily" }, "emailNotices"],
      [{ theme: "dark" }, "theme"],
      [{}, "body"],
    ];
    for (const [body, field] of cases) {
      const res = await call(settingsRoute.PATCH, { user: u, method: "PATCH", body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error.field, JSON.stringify(body)).toBe(field);
    }
    const row = await getDb().user.findUniqueOrThrow({ where: { id: u.id } });
    expect([row.language, row.timeZone, row.emailNotices]).toEqual([null, null, "off"]);
    // Cross-site writes are refused like every mutation.
    const cross = await call(settingsRoute.PATCH, {
      user: u,
      method: "PATCH",
      body: { language: "zh" },
      headers: { origin: "https://evil.example" },
    });
    expect(cross.status).toBe(403);
  });
});
