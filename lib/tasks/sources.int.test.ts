import { describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { db, transaction } from "@/lib/db/kysely";
import { sql } from "kysely";
import * as taskRoute from "@/app/api/tasks/[id]/route";
import * as tasksRoute from "@/app/api/tasks/route";
import * as historyRoute from "@/app/api/tasks/[id]/history/route";
import { deleteAccount } from "@/lib/commands/delete-account";
import { call, createConversationFor, signUp, type TestUser } from "@/tests/helpers";
import { statementsOf } from "@/tests/statements";
import { recordSource, researchContext, SOURCE_EXCERPT_MAX_CHARS, type SourceRead } from "./sources";

const pagesReadLastHour = async (ownerId: string) => (await researchContext(randomUUID(), ownerId, 0)).pagesLastHour;

async function newTask(user: TestUser): Promise<string> {
  const conversationId = await createConversationFor(user);
  const res = await call(tasksRoute.POST, {
    user,
    body: { conversationId, title: "Sea otters", prompt: "Research sea otters", clientRequestId: randomUUID() },
  });
  expect(res.status).toBe(202);
  return res.json.task.id as string;
}

const page = (url: string, extra: Partial<SourceRead> = {}): SourceRead => ({
  url,
  finalUrl: url,
  title: `Title of ${url}`,
  site: new URL(url).hostname,
  text: "Sea otters use stones as tools.",
  hash: "a".repeat(64),
  ...extra,
});

describe("task sources", () => {
  it("are numbered in reading order, a URL once per task, excerpts bounded; GET /api/tasks/:id lists them without their text", async () => {
    const user = await signUp();
    const taskId = await newTask(user);
    const first = await transaction((tx) =>
      recordSource(
        tx,
        taskId,
        user.id,
        page("https://a.example/otters", {
          finalUrl: "https://a.example/otters/",
          text: "x".repeat(SOURCE_EXCERPT_MAX_CHARS + 500),
        }),
      ),
    );
    const second = await transaction((tx) => recordSource(tx, taskId, user.id, page("https://b.example/tools")));
    const again = await transaction((tx) =>
      recordSource(tx, taskId, user.id, page("https://a.example/otters", { title: "changed" })),
    );
    expect([first, second, again]).toEqual([
      { n: 1, inserted: true },
      { n: 2, inserted: true },
      { n: 1, inserted: false },
    ]);
    const stored = await getDb().taskSource.findMany({ where: { taskId }, orderBy: { n: "asc" } });
    expect(stored.map((s) => [s.n, s.title, s.excerpt.length])).toEqual([
      [1, "Title of https://a.example/otters", SOURCE_EXCERPT_MAX_CHARS],
      [2, "Title of https://b.example/tools", 31],
    ]);

    const res = await call(taskRoute.GET, { user, path: `/api/tasks/${taskId}`, params: { id: taskId } });
    expect(res.status).toBe(200);
    expect(res.json.task.sources).toEqual([
      {
        n: 1,
        url: "https://a.example/otters",
        title: "Title of https://a.example/otters",
        site: "a.example",
        fetchedAt: stored[0]!.fetchedAt.toISOString(),
      },
      {
        n: 2,
        url: "https://b.example/tools",
        title: "Title of https://b.example/tools",
        site: "b.example",
        fetchedAt: stored[1]!.fetchedAt.toISOString(),
      },
    ]);

    // Another account sees neither the task nor its sources.
    const other = await signUp("Other");
    expect(
      (await call(taskRoute.GET, { user: other, path: `/api/tasks/${taskId}`, params: { id: taskId } })).status,
    ).toBe(404);
  });

  it("a task that read nothing lists no sources; sources go with the account", async () => {
    const user = await signUp();
    const taskId = await newTask(user);
    const res = await call(taskRoute.GET, { user, path: `/api/tasks/${taskId}`, params: { id: taskId } });
    expect(res.json.task.sources).toEqual([]);
    await transaction((tx) => recordSource(tx, taskId, user.id, page("https://c.example/")));
    expect(await getDb().taskSource.count({ where: { ownerId: user.id } })).toBe(1);
    await deleteAccount(user.id);
    expect(await getDb().taskSource.count({ where: { ownerId: user.id } })).toBe(0);
  });
});

describe("sources in the timeline and against the account's hourly allowance", () => {
  it("each source read is a history item with its number; pages read in the last hour are counted per account", async () => {
    const user = await signUp("Reader");
    const taskId = await newTask(user);
    await transaction((tx) => recordSource(tx, taskId, user.id, page("https://d.example/otters")));
    await transaction((tx) => recordSource(tx, taskId, user.id, page("https://e.example/stones")));
    const history = await call(historyRoute.GET, {
      user,
      path: `/api/tasks/${taskId}/history`,
      params: { id: taskId },
    });
    const sources = (history.json.items as { type: string }[]).filter((i) => i.type === "source");
    expect(sources).toEqual([
      expect.objectContaining({
        type: "source",
        n: 1,
        url: "https://d.example/otters",
        title: "Title of https://d.example/otters",
        site: "d.example",
      }),
      expect.objectContaining({ type: "source", n: 2, url: "https://e.example/stones" }),
    ]);

    expect(await pagesReadLastHour(user.id)).toBe(2);
    // An hour-old read no longer counts, and another account's reads never do.
    await db()
      .updateTable("task_source")
      .set({ fetchedAt: sql<Date>`now() - interval '61 minutes'` })
      .where("taskId", "=", taskId)
      .where("n", "=", 1)
      .execute();
    expect(await pagesReadLastHour(user.id)).toBe(1);
    const other = await signUp("OtherReader");
    expect(await pagesReadLastHour(other.id)).toBe(0);
  });

  it("a research step's context (the task's sources and the account's hourly count) is one round trip", async () => {
    const user = await signUp("OneTrip");
    const taskId = await newTask(user);
    const otherTask = await newTask(user);
    await transaction((tx) =>
      recordSource(tx, taskId, user.id, page("https://f.example/a", { text: "Otters float on their backs." })),
    );
    await transaction((tx) => recordSource(tx, taskId, user.id, page("https://f.example/b")));
    await transaction((tx) => recordSource(tx, otherTask, user.id, page("https://g.example/c")));
    const { result, statements } = await statementsOf(() => researchContext(taskId, user.id, 6));
    expect(statements).toHaveLength(1);
    expect(result).toEqual({
      pagesLastHour: 3,
      sources: [
        {
          n: 1,
          url: "https://f.example/a",
          finalUrl: "https://f.example/a",
          title: "Title of https://f.example/a",
          site: "f.example",
          text: "Otters",
        },
        {
          n: 2,
          url: "https://f.example/b",
          finalUrl: "https://f.example/b",
          title: "Title of https://f.example/b",
          site: "f.example",
          text: "Sea ot",
        },
      ],
    });
    expect(await researchContext(await newTask(user), user.id, 6)).toEqual({ sources: [], pagesLastHour: 3 });
  });
});
