import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getAuth } from "@/lib/auth/auth";
import { getDb } from "@/lib/db/client";
import { postMessage } from "@/lib/chat/post-message";
import {
  createConversationFor,
  ORIGIN,
  startWorkerProcess,
  stopWorkers,
  TEST_PASSWORD,
  waitFor,
  type TestUser,
  type WorkerProc,
} from "@/tests/helpers";

/**
 * One local clock: the signing-up browser's zone becomes the account's, and
 * what Herald writes about a due time (the agent's reply, the note under it)
 * reads in that zone, through a real worker and the offline model.
 */
async function signUpIn(timeZone: unknown, name = "Clock"): Promise<TestUser> {
  const email = `${name.toLowerCase()}-${randomUUID().slice(0, 8)}@example.test`;
  const res = await getAuth().handler(
    new Request(`${ORIGIN}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: ORIGIN },
      body: JSON.stringify({ name, email, password: TEST_PASSWORD, ...(timeZone === undefined ? {} : { timeZone }) }),
    }),
  );
  expect(res.status).toBe(200);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const body = (await res.json()) as { user: { id: string } };
  return { id: body.user.id, email, cookie };
}

const zoneOf = async (u: TestUser) =>
  (await getDb().user.findUniqueOrThrow({ where: { id: u.id }, select: { timeZone: true } })).timeZone;

/**
 * The moment as a reader in `timeZone` sees it ("9:54:25 PM" / "21:54:25"), with
 * the day in front when it is not `now`'s day there ("Wed, Dec 2, 12:09:28 AM"):
 * computed independently of lib/contract/clock.ts, and true at any hour the
 * suite runs (a due time ten minutes after 23:55 is tomorrow's).
 */
function clockIn(d: Date, timeZone: string, lang: "en" | "zh", now: Date): string {
  const locale = lang === "zh" ? "zh-CN" : "en-US";
  const day = (x: Date) => new Intl.DateTimeFormat("en-CA", { timeZone, dateStyle: "short" }).format(x);
  const otherDay = day(d) !== day(now);
  return new Intl.DateTimeFormat(locale, {
    timeZone,
    ...(otherDay ? { weekday: "short", month: "short", day: "numeric" } : {}),
    hour: lang === "zh" ? "2-digit" : "numeric",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: lang === "zh" ? "h23" : "h12",
  } as const)
    .format(d)
    .replace(/\s/g, " ");
}

describe("the account's time zone comes from the signing-up browser", () => {
  it("stores a valid IANA zone in its canonical spelling, ignores anything else", async () => {
    expect(await zoneOf(await signUpIn("Asia/Shanghai"))).toBe("Asia/Shanghai");
    expect(await zoneOf(await signUpIn("america/new_york"))).toBe("America/New_York");
    expect(await zoneOf(await signUpIn("Mars/Olympus_Mons"))).toBeNull();
    expect(await zoneOf(await signUpIn(42))).toBeNull();
    expect(await zoneOf(await signUpIn(undefined))).toBeNull();
  });
});

describe("what Herald writes about a due time reads in that zone", () => {
  let worker: WorkerProc;
  beforeAll(() => {
    worker = startWorkerProcess();
  });
  afterAll(() => stopWorkers(worker));

  async function reply(user: TestUser, content: string, delivery: { mode: "at" | "by"; dueInSeconds: number }) {
    const conversationId = await createConversationFor(user);
    const { run } = await postMessage(user.id, conversationId, { content, clientMessageId: randomUUID(), delivery });
    const message = await waitFor(
      () => getDb().message.findFirst({ where: { runId: run.id, kind: "assistant" } }),
      30_000,
      "the reply",
    );
    const userMessage = await getDb().message.findFirstOrThrow({ where: { conversationId, kind: "user" } });
    return { text: message.content, sentAt: userMessage.createdAt };
  }

  it("the agent's promise: the account's clock and a relative part, in English and Chinese", async () => {
    const en = await signUpIn("Asia/Shanghai", "Shanghai");
    const { text, sentAt } = await reply(en, "research heat pump adoption in Europe", {
      mode: "at",
      dueInSeconds: 600,
    });
    const task = await getDb().task.findFirstOrThrow({ where: { ownerId: en.id } });
    expect(text).toContain(`I'll tell you at ${clockIn(task.dueAt!, "Asia/Shanghai", "en", sentAt)}, in 10 min`);
    expect(text).not.toMatch(/UTC|GMT/);

    const zh = await signUpIn("Asia/Shanghai", "Zhong");
    await getDb().user.update({ where: { id: zh.id }, data: { language: "zh" } });
    const r = await reply(zh, "研究一下欧洲的热泵普及情况", { mode: "at", dueInSeconds: 600 });
    const zhTask = await getDb().task.findFirstOrThrow({ where: { ownerId: zh.id } });
    expect(r.text).toContain(`${clockIn(zhTask.dueAt!, "Asia/Shanghai", "zh", r.sentAt)}（10 分钟后）`);
  });

  it("the note under a reply whose deadline started nothing", async () => {
    const user = await signUpIn("America/New_York", "NewYork");
    const { text, sentAt } = await reply(user, "Hello there", { mode: "by", dueInSeconds: 600 });
    const due = new Date(sentAt.getTime() + 600_000);
    expect(text).toContain(`tell me by ${clockIn(due, "America/New_York", "en", sentAt)}, in 10 min`);
  });
});
