import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { db, transaction } from "@/lib/db/kysely";
import { sql } from "kysely";
import { appendMessage } from "@/lib/chat/append-message";
import { postMessage } from "@/lib/chat/post-message";
import { startTask } from "@/lib/tasks/start-task";
import { handleAuthRequest } from "@/lib/auth/handler";
import { setPasswordResetMailer } from "@/lib/auth/reset-mail";
import { sendPasswordResetEmail } from "@/lib/commands/send-password-reset";
import * as accountRoute from "@/app/api/account/route";
import * as exportRoute from "@/app/api/account/export/route";
import * as conversationsRoute from "@/app/api/conversations/route";
import * as tasksRoute from "@/app/api/tasks/route";
import { emailKey } from "@/lib/auth/throttle";
import {
  call,
  createConversationFor,
  ORIGIN,
  signUp,
  startWorkerProcess,
  stopWorkers,
  waitFor,
  type TestUser,
  type WorkerProc,
} from "@/tests/helpers";
import { startSmtpSink, type SinkLine, type SmtpSink } from "@/tests/smtp-sink-process";

/**
 * Accounts end to end below the browser: password reset through a real SMTP
 * server process (tests/smtp-sink.ts) and better-auth's real handler, account
 * deletion isolation, and the export's whitelist.
 */
let sink: SmtpSink;
let lines: SinkLine[] = [];
const PASSWORD = "correct horse battery";

beforeAll(async () => {
  sink = await startSmtpSink();
  lines = sink.lines;
  process.env.SMTP_URL = sink.url;
  process.env.BETTER_AUTH_URL = ORIGIN;
  setPasswordResetMailer(sendPasswordResetEmail);
});

const workers: WorkerProc[] = [];

afterAll(async () => {
  delete process.env.SMTP_URL;
  sink?.stop();
  await stopWorkers(...workers);
});

function auth(path: string, body?: unknown, cookie?: string, clientIp?: string): Promise<Response> {
  const headers: Record<string, string> = { origin: ORIGIN };
  if (clientIp) headers["x-herald-client-ip"] = clientIp;
  if (body !== undefined) headers["content-type"] = "application/json";
  if (cookie) headers.cookie = cookie;
  return handleAuthRequest(
    new Request(`${ORIGIN}/api/auth${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}

const signIn = async (email: string, password: string) => (await auth("/sign-in/email", { email, password })).status;

describe("password policy", () => {
  it("refuses a common password at sign-up with its own code and a sentence", async () => {
    const res = await auth("/sign-up/email", {
      name: "Common",
      email: `common-${randomUUID().slice(0, 8)}@example.test`,
      password: "12345678",
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe("PASSWORD_TOO_COMMON");
    expect(body.message).toMatch(/most common passwords/);
  });
});

describe("password reset", () => {
  it("mails a one-time link that sets a policy-checked password and signs every session out", async () => {
    const u = await signUp("Resetter");
    const before = lines.length;
    const res = await auth("/request-password-reset", { email: u.email, redirectTo: `${ORIGIN}/reset-password` });
    expect(res.status).toBe(200);
    const mail = await waitFor(
      async () => lines.slice(before).find((l) => l.to === u.email && l.accepted),
      20_000,
      "reset email",
    );
    const link = /https?:\/\/\S+\/api\/auth\/reset-password\/\S+/.exec(mail.text ?? "")?.[0];
    expect(link).toBeTruthy();

    // The link redirects to our page with the token.
    const hop = await auth(new URL(link!).pathname.replace("/api/auth", "") + new URL(link!).search);
    expect(hop.status).toBe(302);
    const landing = new URL(hop.headers.get("location")!, ORIGIN);
    expect(landing.origin + landing.pathname).toBe(`${ORIGIN}/reset-password`);
    const token = landing.searchParams.get("token")!;
    expect(token).toBeTruthy();

    const weak = await auth("/reset-password", { token, newPassword: "12345678" });
    expect(weak.status).toBe(400);
    expect(((await weak.json()) as { code: string }).code).toBe("PASSWORD_TOO_COMMON");

    const ok = await auth("/reset-password", { token, newPassword: "a brand new lantern 42" });
    expect(ok.status).toBe(200);
    // One-time: the same token is refused afterwards.
    const again = await auth("/reset-password", { token, newPassword: "another fresh lantern 43" });
    expect(again.status).toBe(400);

    expect(await signIn(u.email, PASSWORD)).toBe(401);
    expect(await signIn(u.email, "a brand new lantern 42")).toBe(200);
    // The session from before the reset is gone.
    expect((await call(conversationsRoute.GET, { user: u })).status).toBe(401);
  });

  it("answers the same for an unknown address and sends nothing", async () => {
    const email = `nobody-${randomUUID().slice(0, 8)}@example.test`;
    const known = await signUp("Known");
    const before = lines.length;
    expect((await auth("/request-password-reset", { email, redirectTo: `${ORIGIN}/reset-password` })).status).toBe(200);
    // A mail to a known address sent after it proves the sink had time to receive the first.
    await auth("/request-password-reset", { email: known.email, redirectTo: `${ORIGIN}/reset-password` });
    await waitFor(async () => lines.slice(before).some((l) => l.to === known.email), 20_000, "second email");
    expect(lines.slice(before).some((l) => l.to === email)).toBe(false);
  });

  it("sends at most 3 reset emails per address an hour", async () => {
    const email = `flooded-${randomUUID().slice(0, 8)}@example.test`;
    const answers: Response[] = [];
    // A new client address each time: the per-address limit is what is measured, not better-auth's per-IP one.
    for (let i = 0; i < 4; i++)
      answers.push(
        await auth(
          "/request-password-reset",
          { email, redirectTo: `${ORIGIN}/reset-password` },
          undefined,
          `10.9.${i}.${Math.floor(Math.random() * 250) + 1}`,
        ),
      );
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(((await answers[3].json()) as { message: string }).message).toMatch(/Too many reset emails/);
    expect(Number(answers[3].headers.get("retry-after"))).toBeGreaterThan(60);
  });

  it("refuses a made-up token", async () => {
    const res = await auth("/reset-password", { token: "not-a-real-token", newPassword: "a brand new lantern 42" });
    expect(res.status).toBe(400);
  });
});

async function seed(u: TestUser, secret: string) {
  const conversationId = await createConversationFor(u, `chat of ${secret}`);
  // A queued chat turn (no worker runs here): deletion cancels and removes it.
  await postMessage(u.id, conversationId, { content: `turn ${secret}`, clientMessageId: randomUUID() });
  await transaction(async (tx) => {
    await appendMessage(tx, { conversationId, ownerId: u.id, kind: "user", content: `visible ${secret}` });
    await appendMessage(tx, {
      conversationId,
      ownerId: u.id,
      kind: "assistant",
      content: `hidden prompt ${secret}`,
      hidden: true,
    });
  });
  const { task: active } = await startTask({
    ownerId: u.id,
    conversationId,
    title: `active ${secret}`,
    prompt: `prompt ${secret}`,
    clientRequestId: randomUUID(),
  });
  const { task: done } = await startTask({
    ownerId: u.id,
    conversationId,
    title: `done ${secret}`,
    prompt: `prompt ${secret}`,
    clientRequestId: randomUUID(),
  });
  // Server-only columns hold the secret too: the export must not carry them.
  await getDb().task.update({
    where: { id: done.id },
    data: {
      status: "succeeded",
      completedAt: new Date(),
      remoteRef: `ref-${secret}`,
      leaseToken: `lease-${secret}`,
      driverData: { key: `driver-${secret}` },
    },
  });
  const publication = await getDb().publication.create({
    data: {
      taskId: done.id,
      conversationId,
      ownerId: u.id,
      version: 1,
      partial: false,
      content: `report ${secret}`,
      sha256: "x",
    },
  });
  await getDb().apiKey.create({
    data: { ownerId: u.id, name: "k", prefix: "hk_", hash: `hash-${secret}-${randomUUID()}` },
  });
  return { conversationId, activeId: active.id, doneId: done.id, publicationId: publication.id };
}

async function counts(ownerId: string) {
  const [messages, publications, tasks, events, keys, sessions, conversations, runs] = await Promise.all([
    getDb().message.count({ where: { ownerId } }),
    getDb().publication.count({ where: { ownerId } }),
    getDb().task.count({ where: { ownerId } }),
    getDb().event.count({ where: { ownerId } }),
    getDb().apiKey.count({ where: { ownerId } }),
    getDb().session.count({ where: { userId: ownerId } }),
    getDb().conversation.count({ where: { ownerId, deletedAt: null } }),
    getDb().run.count({ where: { ownerId } }),
  ]);
  return { messages, publications, tasks, events, keys, sessions, conversations, runs };
}

/** Every row of every table whose text holds one of `needles`, as "table: row". */
async function rowsMentioning(needles: string[]): Promise<string[]> {
  const { rows: tables } = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(
    db(),
  );
  expect(tables.length).toBeGreaterThan(15);
  const out: string[] = [];
  for (const { name } of tables) {
    const { rows } = await sql<{ row: string }>`
      SELECT t::text AS row FROM ${sql.table(name)} t WHERE EXISTS (SELECT 1 FROM unnest(${needles}::text[]) n WHERE strpos(t::text, n) > 0)`.execute(
      db(),
    );
    out.push(...rows.map((r) => `${name}: ${r.row.slice(0, 300)}`));
  }
  return out;
}

/** What identifies an account's rows anywhere: its id, address, the address's throttle key, its tasks and conversations. */
async function needlesOf(u: TestUser): Promise<string[]> {
  const [tasks, conversations] = await Promise.all([
    getDb().task.findMany({ where: { ownerId: u.id }, select: { id: true } }),
    getDb().conversation.findMany({ where: { ownerId: u.id }, select: { id: true } }),
  ]);
  return [u.id, u.email, emailKey(u.email), ...tasks.map((t) => t.id), ...conversations.map((c) => c.id)];
}

const startResearch = async (u: TestUser, conversationId: string, title: string) => {
  const res = await call(tasksRoute.POST, {
    user: u,
    body: {
      conversationId,
      title,
      prompt: `research ${title}`,
      clientRequestId: randomUUID(),
      options: { simulate: { steps: 6, stepMs: 400 } },
    },
  });
  expect(res.status).toBe(202);
  return res.json.task.id as string;
};

describe("account deletion", () => {
  it("asks for the password, then removes every row of that account and only of that account", async () => {
    const a = await signUp("Leaver");
    const b = await signUp("Stayer");
    await seed(a, "AAA");
    const sb = await seed(b, "BBB");
    const bBefore = await counts(b.id);

    const wrong = await call(accountRoute.DELETE, { user: a, method: "DELETE", body: { password: "not my password" } });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error.field).toBe("password");
    const missing = await call(accountRoute.DELETE, { user: a, method: "DELETE", body: {} });
    expect(missing.status).toBe(400);
    expect(missing.json.error.field).toBe("password");
    expect((await counts(a.id)).messages).toBe(3);
    // A reset token and a throttle bucket of the address exist too.
    await auth("/request-password-reset", { email: a.email, redirectTo: `${ORIGIN}/reset-password` });
    expect(await signIn(a.email, "not my password either")).toBe(401);
    const needles = await needlesOf(a);
    expect((await rowsMentioning(needles)).length).toBeGreaterThan(10);

    const ok = await call(accountRoute.DELETE, { user: a, method: "DELETE", body: { password: PASSWORD } });
    expect(ok.status).toBe(204);
    expect(await rowsMentioning(needles)).toEqual([]);

    expect((await call(conversationsRoute.GET, { user: a })).status).toBe(401);
    expect(await signIn(a.email, PASSWORD)).toBe(401);
    // The address is free again.
    expect((await auth("/sign-up/email", { name: "Again", email: a.email, password: PASSWORD })).status).toBe(200);

    // The other account is untouched.
    expect(await counts(b.id)).toEqual(bBefore);
    const bTask = await getDb().task.findUniqueOrThrow({ where: { id: sb.activeId } });
    expect(bTask.cancelRequestedAt).toBeNull();
    expect(bTask.title).toBe("active BBB");
    expect(await getDb().publication.count({ where: { id: sb.publicationId } })).toBe(1);
  });

  it("leaves no row behind while a worker is in the middle of the account's research: its late writes miss", async () => {
    const a = await signUp("Leaver mid-task");
    const b = await signUp("Neighbour mid-task");
    const ca = await createConversationFor(a, "running");
    const cb = await createConversationFor(b, "running");
    const running = await startResearch(a, ca, "long AAA");
    // Started after the leaver's, with the same pacing: when it is done, the leaver's would have gone on at least as long.
    const witness = await startResearch(b, cb, "long BBB");
    const worker = startWorkerProcess({ HERALD_TASK_LEASE_MS: "2000" });
    workers.push(worker);
    await waitFor(
      async () => (await getDb().taskStep.count({ where: { taskId: running } })) >= 2,
      30_000,
      "the leaver's task to be under way",
    );
    const needles = await needlesOf(a);

    const ok = await call(accountRoute.DELETE, { user: a, method: "DELETE", body: { password: PASSWORD } });
    expect(ok.status).toBe(204);
    expect(await rowsMentioning(needles)).toEqual([]);

    await waitFor(
      async () => (await getDb().task.findUnique({ where: { id: witness } }))?.status === "succeeded",
      60_000,
      "the neighbour's task to finish",
    );
    expect(await rowsMentioning(needles)).toEqual([]);
    expect(await getDb().taskStep.count({ where: { taskId: witness } })).toBeGreaterThan(2);
    // The tests below count chat replies: no worker answers their queued turns.
    await stopWorkers(worker);
  });

  it("needs a session", async () => {
    const res = await call(accountRoute.DELETE, { method: "DELETE", body: { password: PASSWORD } });
    expect(res.status).toBe(401);
  });
});

describe("data export", () => {
  it("holds the account's own conversations, messages, tasks and reports in public shapes only", async () => {
    const a = await signUp("Exporter");
    const b = await signUp("Neighbour");
    const sa = await seed(a, "EXP");
    await seed(b, "OTHER");

    const res = await call(exportRoute.GET, { user: a });
    expect(res.status).toBe(200);
    expect(res.res.headers.get("content-disposition")).toMatch(/attachment/);
    const text = JSON.stringify(res.json);
    const data = res.json;
    expect(data.format).toBe("herald-export-1");
    expect(data.account.email).toBe(a.email);
    expect(data.conversations).toHaveLength(1);
    expect(data.conversations[0].id).toBe(sa.conversationId);
    expect(data.conversations[0].messages.map((m: { content: string }) => m.content)).toEqual([
      "turn EXP",
      "visible EXP",
    ]);
    expect(data.tasks.map((t: { id: string }) => t.id).sort()).toEqual([sa.activeId, sa.doneId].sort());
    expect(data.reports).toHaveLength(1);
    expect(data.reports[0]).toMatchObject({ id: sa.publicationId, content: "report EXP", version: 1, partial: false });
    expect(data.truncated).toEqual([]);

    // Nothing hidden, server-only or another account's.
    for (const leak of [
      "hidden prompt EXP",
      'prompt EXP"',
      "ref-EXP",
      "lease-EXP",
      "driver-EXP",
      "hash-EXP",
      "OTHER",
    ]) {
      expect(text).not.toContain(leak);
    }
    for (const key of [
      "leaseToken",
      "remoteRef",
      "driverData",
      "prompt",
      "ownerId",
      "hash",
      "password",
      "eventFingerprint",
      "hidden",
    ]) {
      expect(text).not.toContain(`"${key}"`);
    }
  });

  it("is bounded per account per minute", async () => {
    const u = await signUp("Hoarder");
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await call(exportRoute.GET, { user: u })).status);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    const limited = await call(exportRoute.GET, { user: u });
    expect(limited.status).toBe(429);
    expect(Number(limited.res.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
