import { test, expect, type Page, type Response } from "@playwright/test";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createTask, newChat, send, signUp } from "./helpers";

// Every page carries a nonce CSP (no remote origins, no framing),
// every response the static hardening headers, and the app still hydrates and
// works under the policy without a single violation.

const BEACON = "https://evil.example/b.png";

/** Fails the test on any CSP violation the page reports, from the console or the DOM event. */
function watchForViolations(page: Page): string[] {
  const violations: string[] = [];
  page.on("console", (msg) => {
    if (/Content Security Policy/i.test(msg.text())) violations.push(msg.text());
  });
  page.on("pageerror", (err) => violations.push(`pageerror: ${err.message}`));
  // Init scripts come from the debugger, so the policy under test does not apply to them.
  void page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      console.error(
        `Content Security Policy violation: ${e.violatedDirective} blocked ${e.blockedURI} (${e.sourceFile}:${e.lineNumber}:${e.columnNumber}) on ${location.pathname}`,
      );
    });
  });
  return violations;
}

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name, sources]),
  );
}

/** Asserts the page policy and the static headers; returns the nonce. */
async function expectPageHeaders(res: Response | null): Promise<string> {
  expect(res, "navigation response").not.toBeNull();
  const headers = await res!.allHeaders();
  const csp = headers["content-security-policy"];
  expect(csp, "Content-Security-Policy").toBeTruthy();
  const d = directives(csp);
  expect(d.get("default-src")).toEqual(["'self'"]);
  const script = d.get("script-src") ?? [];
  const nonce = script.map((s) => /^'nonce-(.+)'$/.exec(s)?.[1]).find(Boolean);
  expect(nonce, `a nonce in script-src: ${script.join(" ")}`).toBeTruthy();
  expect(script).toContain("'strict-dynamic'");
  expect(script).not.toContain("'unsafe-inline'");
  expect(script).not.toContain("'unsafe-eval'"); // the suite runs next start, never next dev
  expect(d.get("img-src")).toEqual(["'self'", "data:", "blob:"]);
  expect(d.get("connect-src")).toEqual(["'self'"]);
  expect(d.get("object-src")).toEqual(["'none'"]);
  expect(d.get("base-uri")).toEqual(["'self'"]);
  expect(d.get("form-action")).toEqual(["'self'"]);
  expect(d.get("frame-ancestors")).toEqual(["'none'"]);
  for (const [name, sources] of d) {
    for (const s of sources)
      expect(s, `${name} allows a remote origin`).not.toMatch(/^(https?:|wss?:|\*|[\w-]+\.[\w.-]+)/i);
  }
  expectStaticHeaders(headers);
  return nonce!;
}

function expectStaticHeaders(headers: Record<string, string>): void {
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toMatch(/^(strict-origin-when-cross-origin|no-referrer)$/);
  expect(headers["x-frame-options"]).toBe("DENY");
}

/** Next stamped the response's nonce on the scripts it rendered (the browser hides the attribute; the property keeps it). */
async function expectScriptsCarry(page: Page, nonce: string): Promise<void> {
  const nonces = await page.evaluate(() => [...document.querySelectorAll("script")].map((s) => s.nonce));
  expect(nonces.length).toBeGreaterThan(0);
  expect(nonces).toContain(nonce);
}

test("pages carry a fresh-nonce CSP, hydrate under it, and report no violation", async ({ page }) => {
  const violations = watchForViolations(page);
  const beaconRequests: string[] = [];
  page.on("request", (req) => {
    if (new URL(req.url()).hostname !== "localhost") beaconRequests.push(req.url());
  });

  const first = await expectPageHeaders(await page.goto("/sign-in"));
  await expectScriptsCarry(page, first);
  const second = await expectPageHeaders(await page.goto("/sign-in"));
  expect(second).not.toBe(first);
  await expectScriptsCarry(page, second);

  // Signing up is client code end to end (form state, fetch, router): it only works hydrated.
  await signUp(page, "Csp");
  const home = await expectPageHeaders(await page.goto("/"));
  await expectScriptsCarry(page, home);
  await expect(page.getByRole("button", { name: "Sign out", exact: true })).toBeVisible();

  // Client navigation, the SSE feed, a streamed reply and a Radix dialog (its scroll lock injects styles).
  const conversationId = await newChat(page);
  await send(page, "Hello under CSP");
  await expect(page.locator('[data-kind="assistant"]')).toContainText('You said: "Hello under CSP"');
  await page.getByRole("button", { name: "Background tasks", exact: true }).click();
  await expect(page.getByRole("dialog", { name: "Background tasks" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);

  // A published body whose Markdown carries a remote image: a link, never an <img>, and nothing fetched.
  await createTask(page, conversationId, `Beacon ![pixel](${BEACON})`, { steps: 1, stepMs: 0 });
  const body = page.locator('[data-kind="body"][data-partial="false"]');
  await expect(body).toHaveCount(1, { timeout: 20_000 });
  await expect(body.locator("img")).toHaveCount(0);
  // The title is the heading, and the offline research text quotes it again.
  const links = body.getByRole("link", { name: "pixel" });
  await expect(links.first()).toBeVisible();
  for (const link of await links.all()) {
    await expect(link).toHaveAttribute("href", BEACON);
    await expect(link).toHaveAttribute("rel", "noopener noreferrer nofollow");
  }

  const reloaded = await expectPageHeaders(await page.reload());
  expect(reloaded).not.toBe(home);
  await expect(page.locator('[data-kind="body"] img')).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Sign out", exact: true })).toBeVisible();

  expect(beaconRequests).toEqual([]);
  expect(violations).toEqual([]);
});

test("API responses get the static headers and no page CSP; the SSE feed still streams", async ({ page }) => {
  const health = await page.request.get("/api/health");
  expectStaticHeaders(health.headers());
  expect(health.headers()["content-security-policy"]).toBeUndefined();

  await signUp(page, "CspApi");
  // Headers and the first frame arrive at once: nothing between the handler and the browser buffers the stream.
  const feed = await page.evaluate(async () => {
    const ctrl = new AbortController();
    const res = await fetch("/api/events", { signal: ctrl.signal });
    const reader = res.body!.getReader();
    const first = await Promise.race([
      reader.read().then((r) => new TextDecoder().decode(r.value)),
      new Promise<null>((r) => setTimeout(() => r(null), 20_000)),
    ]);
    ctrl.abort();
    return {
      status: res.status,
      type: res.headers.get("content-type"),
      nosniff: res.headers.get("x-content-type-options"),
      first,
    };
  });
  expect(feed.status).toBe(200);
  expect(feed.type).toMatch(/^text\/event-stream/);
  expect(feed.nosniff).toBe("nosniff");
  expect(feed.first, "a first SSE frame").not.toBeNull();
});

test("another site cannot frame Herald", async ({ page, baseURL }) => {
  // A real loopback server: 127.0.0.1 is another site than localhost, and Chromium's
  // local-network rules block a public (or intercepted) framer before CSP is consulted.
  const framer = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<iframe src="${baseURL}/sign-in" width="600" height="400"></iframe>`);
  });
  await new Promise<void>((resolve) => framer.listen(0, "127.0.0.1", resolve));
  try {
    const framed = page.waitForResponse(`${baseURL}/sign-in`);
    await page.goto(`http://127.0.0.1:${(framer.address() as AddressInfo).port}/`);
    // Herald answered the frame's request; the browser refused to show it (frame-ancestors / X-Frame-Options).
    expect((await framed).status()).toBe(200);
    const child = () => page.frames().find((f) => f !== page.mainFrame());
    await expect.poll(() => child()?.url()).toMatch(/^chrome-error:/);
    await expect(page.frameLocator("iframe").getByRole("button", { name: "Sign in" })).toHaveCount(0);
  } finally {
    await new Promise((resolve) => framer.close(resolve));
  }
});
