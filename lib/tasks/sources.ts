import { getDb } from "@/lib/db/client";
import type { Tx } from "@/lib/db/kysely";
import { countTaskSearchUnder } from "./sql";
import { insertTaskSource, researchContextRow, taskSourceNumber, type StoredSource } from "./step-output-sql";
import { toPublicSource, type PublicTaskSource } from "@/lib/contract/task";
import type { PageText } from "@/lib/research/read-page";

/** What one stored source keeps of a page's text (CHECK task_source_excerpt_check). */
export const SOURCE_EXCERPT_MAX_CHARS = 20_000;

/** A page as the research step read it; stored as is, its text bounded to an excerpt. */
export type SourceRead = PageText;

/**
 * Records a page a research task read, numbered next in reading order, in the
 * caller's transaction (the step that read it), so a crash between reading and
 * committing leaves nothing and a resumed task reads it again, once. A URL the
 * task already read keeps its first row and number. Call it under the task's
 * row lock (the worker's step transaction holds it): two writers could
 * otherwise pick the same number.
 */
export async function recordSource(
  tx: Tx,
  taskId: string,
  ownerId: string,
  page: SourceRead,
): Promise<{ n: number; inserted: boolean }> {
  const excerpt =
    page.text.length > SOURCE_EXCERPT_MAX_CHARS ? page.text.slice(0, SOURCE_EXCERPT_MAX_CHARS) : page.text;
  const n = await insertTaskSource(tx, {
    taskId,
    ownerId,
    url: page.url,
    finalUrl: page.finalUrl,
    title: page.title,
    site: page.site,
    excerpt,
    hash: page.hash,
  });
  if (n !== null) return { n, inserted: true };
  return { n: await taskSourceNumber(tx, taskId, page.url), inserted: false };
}

/** The sources a task of this account read, in citation order. */
export async function listSources(ownerId: string, taskId: string): Promise<PublicTaskSource[]> {
  const rows = await getDb().taskSource.findMany({
    where: { taskId, ownerId },
    orderBy: { n: "asc" },
    select: { n: true, url: true, title: true, site: true, fetchedAt: true },
  });
  return rows.map(toPublicSource);
}

/**
 * Counts one search in task.driverData.searches under the execution lease,
 * unless the task already made `max`: committed on its own before the search
 * is sent (like countTaskModelRequest), so a step that crashes after its
 * searches cannot make them again past the budget on resume. The step's own
 * commit later writes the same total.
 */
export async function countTaskSearch(id: string, token: string, max: number): Promise<boolean> {
  return countTaskSearchUnder(id, token, max);
}

/**
 * What a research step needs before it starts, in one round trip: the pages
 * its task already read (skip them, number on from them, list them, reread the
 * first `textChars` of their stored excerpt: what a section prompt carries),
 * and how many pages the account's tasks read in the last hour, against
 * HERALD_LIMIT_PAGES_PER_HOUR (index task_source_ownerId_fetchedAt_idx).
 */
export async function researchContext(
  taskId: string,
  ownerId: string,
  textChars: number,
): Promise<{ sources: StoredSource[]; pagesLastHour: number }> {
  const row = await researchContextRow(taskId, ownerId, textChars);
  return { sources: row!.sources, pagesLastHour: row!.pagesLastHour };
}
