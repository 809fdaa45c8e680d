import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { randomBytes } from "node:crypto";
import { route } from "./route";
import { sendPasswordResetMail, setPasswordResetMailer } from "@/lib/auth/reset-mail";
import { sendEmail } from "@/lib/email/transport";
import { emailLoop } from "@/lib/email/loop";
import { unsubscribeToken } from "@/lib/email/unsubscribe";
import { redactPath } from "@/lib/util/log";
import { call, signUp } from "@/tests/helpers";
import { startSmtpSink, type SmtpSink } from "@/tests/smtp-sink-process";

/**
 * What the logs say when a handler or a mail fails: the operator gets a ref, the
 * route and the error, never a credential from the URL nor a recipient's address.
 */
let lines: string[] = [];
let sink: SmtpSink;

function captureConsole() {
  lines = [];
  const keep = (...args: unknown[]) => {
    lines.push(
      args
        .map((a) => (a instanceof Error ? `${a.message}\n${a.stack}` : typeof a === "string" ? a : JSON.stringify(a)))
        .join(" "),
    );
  };
  for (const m of ["error", "warn", "log", "info"] as const) vi.spyOn(console, m).mockImplementation(keep);
}

beforeAll(async () => {
  sink = await startSmtpSink();
});
afterAll(() => sink?.stop());
afterEach(() => {
  vi.restoreAllMocks();
  delete process.env.SMTP_URL;
});

const shareToken = () => randomBytes(32).toString("base64url");

describe("handler errors", () => {
  it("log the ref and the path without its tokens or query", async () => {
    const u = await signUp("Logged");
    const share = shareToken();
    const unsubscribe = unsubscribeToken(u.id);
    const reset = randomBytes(12).toString("hex");
    const failing = route({}, async () => {
      throw new Error(`lookup failed for ${u.email}`);
    });
    captureConsole();
    const res = await call(failing, {
      user: u,
      path: `/api/share/${share}?token=${encodeURIComponent(unsubscribe)}&reset=${reset}`,
    });
    expect(res.status).toBe(500);
    const ref = res.json.error.ref as string;
    const text = lines.join("\n");
    expect(text).toContain(ref);
    expect(text).toContain("/api/share/:redacted");
    for (const secret of [share, unsubscribe, encodeURIComponent(unsubscribe), reset, u.email])
      expect(text).not.toContain(secret);
  });
});

describe("mail failures", () => {
  it("a failed password-reset mail logs the account id, not the address or the link", async () => {
    const email = "reset-victim@example.test";
    const token = shareToken();
    const url = `http://localhost:3000/api/auth/reset-password/${token}?callbackURL=%2Freset-password`;
    setPasswordResetMailer(async () => {
      throw new Error(`550 5.1.1 <${email}>: Recipient address rejected (link ${url})`);
    });
    captureConsole();
    await sendPasswordResetMail({ user: { id: "acct-1", email, name: "Victim" }, url });
    const text = lines.join("\n");
    expect(text).toContain("acct-1");
    expect(text).not.toContain(email);
    expect(text).not.toContain(token);
  });

  it("an SMTP rejection and the email loop's error lines name no recipient", async () => {
    process.env.SMTP_URL = sink.url;
    const to = `permfail-${randomBytes(4).toString("hex")}@example.test`;
    captureConsole();
    const outcome = await sendEmail({
      from: "Herald <herald@example.test>",
      to,
      subject: "s",
      text: "t",
      html: "<p>t</p>",
      messageId: "<m@example.test>",
      headers: {},
    });
    expect(outcome).toMatchObject({ ok: false, permanent: true });
    emailLoop("w-test").log?.("send failed", new Error(`Can't send mail - all recipients were rejected: 550 <${to}>`));
    const text = lines.join("\n");
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(text).not.toContain(to);
    expect(text).not.toContain(to.split("@")[0]);
  });
});

describe("redactPath", () => {
  it.each([
    ["/share/AbC_d-9xYz0123456789abcdefghijklmnopqrstuvw", "/share/:redacted"],
    [
      "/api/auth/reset-password/abcdefghijklmnopqrstuvwx?callbackURL=%2Freset-password",
      "/api/auth/reset-password/:redacted",
    ],
    ["/unsubscribe?token=abc.def", "/unsubscribe"],
    ["http://localhost:3000/api/email/unsubscribe?token=abc.def#x", "/api/email/unsubscribe"],
    [
      "/api/conversations/4b1e6c3e-9d7a-4a55-8f0c-2f7d1f6b9a10/messages",
      "/api/conversations/4b1e6c3e-9d7a-4a55-8f0c-2f7d1f6b9a10/messages",
    ],
    ["/_next/static/chunks/main-app.js", "/_next/static/chunks/main-app.js"],
    ["/api/unknown/SomeToken123", "/api/unknown/:redacted"],
  ])("%s → %s", (input, expected) => {
    expect(redactPath(input)).toBe(expected);
  });
});
