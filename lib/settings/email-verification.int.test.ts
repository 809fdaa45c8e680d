import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as settingsRoute from "@/app/api/settings/route";
import { handleAuthRequest } from "@/lib/auth/handler";
import { setVerificationMailer } from "@/lib/auth/verify-mail";
import { sendVerificationEmail } from "@/lib/commands/send-verification-email";
import { getDb } from "@/lib/db/client";
import { call, ORIGIN, signUp, waitFor, type TestUser } from "@/tests/helpers";
import { startSmtpSink, type SinkLine, type SmtpSink } from "@/tests/smtp-sink-process";

/**
 * Notice email reaches proven addresses only: sign-up mails better-auth's
 * verification link through a real SMTP server process (tests/smtp-sink.ts),
 * the link marks the address verified, and until then email notices cannot
 * be turned on.
 */
let sink: SmtpSink;
let lines: SinkLine[] = [];

beforeAll(async () => {
  sink = await startSmtpSink();
  lines = sink.lines;
  process.env.SMTP_URL = sink.url;
  setVerificationMailer(sendVerificationEmail);
});

afterAll(() => {
  delete process.env.SMTP_URL;
  sink?.stop();
});

const verified = async (u: TestUser) => (await getDb().user.findUniqueOrThrow({ where: { id: u.id } })).emailVerified;
const patchEmail = (u: TestUser, emailNotices: string) =>
  call(settingsRoute.PATCH, { user: u, method: "PATCH", body: { emailNotices } });

function linkIn(mail: SinkLine): URL {
  const link = /https?:\/\/\S+\/api\/auth\/verify-email\?\S+/.exec(mail.text ?? "")?.[0];
  expect(link).toBeTruthy();
  return new URL(link!);
}

const openLink = (link: URL) => handleAuthRequest(new Request(`${ORIGIN}${link.pathname}${link.search}`));

describe("email address verification", () => {
  it("sign-up mails a verification link; opening it marks the address verified; notices can be turned on only then", async () => {
    const u = await signUp("Verifier");
    const mail = await waitFor(
      async () => lines.find((l) => l.to === u.email && l.accepted),
      20_000,
      "verification email",
    );
    expect(mail.headers!.subject).toBe("Herald: confirm your email address");
    expect(await verified(u)).toBe(false);
    // Signing in never waits on it: the session from sign-up works.
    const before = await call(settingsRoute.GET, { user: u });
    expect(before.status).toBe(200);
    expect(before.json).toMatchObject({ emailAvailable: true, emailVerified: false });

    for (const mode of ["timed", "all"]) {
      const refused = await patchEmail(u, mode);
      expect(refused.status).toBe(409);
      expect(refused.json.error.code).toBe("email_unverified");
      expect(refused.json.error.message).toBeTruthy();
    }
    // Nothing of a refused patch is stored, and "off" (or any other field) is always accepted.
    expect((await getDb().user.findUniqueOrThrow({ where: { id: u.id } })).emailNotices).toBe("off");
    expect((await patchEmail(u, "off")).status).toBe(200);
    expect((await call(settingsRoute.PATCH, { user: u, method: "PATCH", body: { language: "zh" } })).status).toBe(200);

    const opened = await openLink(linkIn(mail));
    expect(opened.status).toBe(302);
    expect(await verified(u)).toBe(true);
    const on = await patchEmail(u, "all");
    expect(on.status).toBe(200);
    expect(on.json).toMatchObject({ emailNotices: "all", emailVerified: true });
  });

  it("Settings' button asks better-auth for a new link, which works as well; a forged link does nothing", async () => {
    const u = await signUp("Resender");
    await waitFor(async () => lines.some((l) => l.to === u.email && l.accepted), 20_000, "sign-up verification email");
    const before = lines.filter((l) => l.to === u.email).length;
    const res = await handleAuthRequest(
      new Request(`${ORIGIN}/api/auth/send-verification-email`, {
        method: "POST",
        headers: { origin: ORIGIN, cookie: u.cookie, "content-type": "application/json" },
        body: JSON.stringify({ email: u.email, callbackURL: "/settings" }),
      }),
    );
    expect(res.status).toBe(200);
    const again = await waitFor(
      async () => lines.filter((l) => l.to === u.email && l.accepted)[before],
      20_000,
      "second verification email",
    );
    const link = linkIn(again);
    expect(link.searchParams.get("callbackURL")).toBe("/settings");

    const forged = new URL(link);
    forged.searchParams.set("token", `${link.searchParams.get("token")!.slice(0, -4)}AAAA`);
    await openLink(forged);
    expect(await verified(u)).toBe(false);

    const opened = await openLink(link);
    expect(opened.status).toBe(302);
    expect(new URL(opened.headers.get("location")!, ORIGIN).pathname).toBe("/settings");
    expect(await verified(u)).toBe(true);
  });
});
