// What a step leaves behind besides the task's own row: its checkpoint, the published bodies, the pages it read.
import { createHash } from "node:crypto";
import type { DB } from "@/lib/db/generated/kysely.ts";
import { db, jsonb, prepared, type Tx } from "@/lib/db/kysely";
import { sql, type Selectable } from "kysely";
import type { TaskRow, TaskSourceRow } from "./sql";

export type PublicationRow = Selectable<DB["publication"]>;

/**
 * A step's checkpoint row; false when the task already has one at this index (a re-claim that raced wrote it).
 * A template, not the builder: a per-step write (AGENTS.md, "Builder or sql").
 */
export async function insertTaskStep(
  tx: Tx,
  taskId: string,
  step: { index: number; kind: string; input: unknown; output: unknown; modelRequests: number },
  usage: { inputTokens: number; outputTokens: number },
): Promise<boolean> {
  const created = await sql`${prepared}
    INSERT INTO "task_step" ("taskId", index, kind, input, output, "modelRequests", "inputTokens", "outputTokens", "createdAt")
    VALUES (${taskId}, ${step.index}, ${step.kind}, ${jsonb(step.input)}::jsonb, ${jsonb(step.output)}::jsonb,
      ${step.modelRequests}, ${usage.inputTokens}, ${usage.outputTokens}, clock_timestamp())
    ON CONFLICT ("taskId", index) DO NOTHING`.execute(tx);
  return created.numAffectedRows !== 0n;
}

/** The task's next publication version. The caller holds the task's row lock, so no other writer numbers one. */
export async function insertPublication(
  tx: Tx,
  task: Pick<TaskRow, "id" | "conversationId" | "ownerId">,
  body: { partial: boolean; content: string },
): Promise<Pick<PublicationRow, "id" | "version">> {
  const {
    rows: [row],
  } = await sql<Pick<PublicationRow, "id" | "version">>`${prepared}
    INSERT INTO "publication" ("taskId", "conversationId", "ownerId", version, partial, content, sha256, "createdAt")
    SELECT ${task.id}, ${task.conversationId}, ${task.ownerId}, coalesce(max(version), 0) + 1, ${body.partial}, ${body.content},
      ${createHash("sha256").update(body.content).digest("hex")}, clock_timestamp()
    FROM "publication" WHERE "taskId" = ${task.id}
    RETURNING id, version`.execute(tx);
  return row;
}

/** A page a step read, numbered next for its task; null when the task already has the URL (its row is kept). */
export async function insertTaskSource(
  tx: Tx,
  r: Pick<TaskSourceRow, "taskId" | "ownerId" | "url" | "finalUrl" | "title" | "site" | "excerpt" | "hash">,
): Promise<number | null> {
  const { rows } = await sql<Pick<TaskSourceRow, "n">>`
    INSERT INTO "task_source" ("taskId", "ownerId", n, url, "finalUrl", title, site, excerpt, hash, "fetchedAt")
    SELECT ${r.taskId}, ${r.ownerId}, coalesce(max(n), 0) + 1, ${r.url}, ${r.finalUrl}, ${r.title}, ${r.site}, ${r.excerpt}, ${r.hash}, clock_timestamp()
    FROM "task_source" WHERE "taskId" = ${r.taskId}
    ON CONFLICT ("taskId", url) DO NOTHING
    RETURNING n`.execute(tx);
  return rows[0]?.n ?? null;
}

/** The number a task's source with this URL was given. */
export async function taskSourceNumber(tx: Tx, taskId: string, url: string): Promise<number> {
  const row = await tx
    .selectFrom("task_source")
    .select("n")
    .where("taskId", "=", taskId)
    .where("url", "=", url)
    .executeTakeFirstOrThrow();
  return row.n;
}

/** A source as a research step rereads it (lib/tasks/sources.ts#researchContext). */
export interface StoredSource {
  n: number;
  url: string;
  finalUrl: string;
  title: string;
  site: string;
  text: string;
}

/**
 * The pages the task already read (the first `textChars` of each excerpt) and how many pages the account's tasks read
 * in the last hour, in one round trip (index task_source_ownerId_fetchedAt_idx).
 */
export async function researchContextRow(
  taskId: string,
  ownerId: string,
  textChars: number,
): Promise<{ sources: StoredSource[]; pagesLastHour: number } | undefined> {
  const {
    rows: [row],
  } = await sql<{ sources: StoredSource[]; pagesLastHour: number }>`
    SELECT
      coalesce((
        SELECT json_agg(json_build_object('n', n, 'url', url, 'finalUrl', "finalUrl", 'title', title, 'site', site, 'text', left(excerpt, ${textChars}::int)) ORDER BY n)
        FROM "task_source" WHERE "taskId" = ${taskId}
      ), '[]'::json) AS sources,
      (SELECT count(*)::int FROM "task_source" WHERE "ownerId" = ${ownerId} AND "fetchedAt" > now() - interval '1 hour') AS "pagesLastHour"`.execute(
    db(),
  );
  return row;
}
