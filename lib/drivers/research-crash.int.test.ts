import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/client";
import { createConversationFor, signUp, stopWorkers, waitFor } from "@/tests/helpers";
import type { ResearchPeer } from "@/tests/research-peer";
import { researchFixture } from "@/tests/research-fixture";

/**
 * A worker killed while a research section reads: what finished sections read
 * is never searched or read again (their sources committed with their steps);
 * the killed section's work is redone once. Slow suite: two worker boots and a
 * lease expiry (about 30 s).
 */

const { peer: peerOf, worker, start, succeeded } = researchFixture();
let peer: ResearchPeer;
beforeAll(() => {
  peer = peerOf();
});

describe("research sources across a crash", () => {
  it("a worker SIGKILLed mid-section: the next resumes without searching or reading again what the finished section read", async () => {
    const u = await signUp("SourcesCrash");
    const conv = await createConversationFor(u);
    const before = new Map(peer.hits);
    // Slow text (40 ms a word) keeps section 2 in flight long enough to be killed in.
    const a = worker({ HERALD_OFFLINE_CHUNK_MS: "40" });
    const id = await start(u, conv, "the otters of Lake Zorb", "Zorb otters, resumed");
    await waitFor(
      async () => (await getDb().taskStep.count({ where: { taskId: id } })) === 2,
      60_000,
      "plan and section 1 committed",
    );
    await waitFor(
      async () => (peer.hits.get("/search") ?? 0) - (before.get("/search") ?? 0) >= 2,
      20_000,
      "section 2 searching",
    );
    a.child.kill("SIGKILL");
    await a.exited;
    expect(await getDb().taskStep.count({ where: { taskId: id } })).toBe(2);
    const firstSection = await getDb().taskSource.findMany({ where: { taskId: id }, orderBy: { n: "asc" } });
    expect(firstSection.map((s) => s.n)).toEqual([1, 2]);

    const b = worker();
    await succeeded(id);
    const sources = await getDb().taskSource.findMany({ where: { taskId: id }, orderBy: { n: "asc" } });
    expect(sources.map((s) => s.n)).toEqual([1, 2, 3, 4]);
    // The rows of the finished section are the same rows; its pages were read once, never again.
    expect(sources.slice(0, 2).map((s) => [s.id, s.url])).toEqual(firstSection.map((s) => [s.id, s.url]));
    for (const s of firstSection)
      expect((peer.hits.get(new URL(s.url).pathname) ?? 0) - (before.get(new URL(s.url).pathname) ?? 0), s.url).toBe(1);
    // The killed section's pages were read at most twice (once by the dead worker, once by its successor).
    for (const s of sources.slice(2))
      expect(
        (peer.hits.get(new URL(s.url).pathname) ?? 0) - (before.get(new URL(s.url).pathname) ?? 0),
      ).toBeLessThanOrEqual(2);
    const body = (await getDb().publication.findFirstOrThrow({ where: { taskId: id, partial: false } })).content;
    expect(body.endsWith(`## Sources\n\n${sources.map((s) => `${s.n}. [${s.title}](${s.url})`).join("\n")}`)).toBe(
      true,
    );
    await stopWorkers(b);
  });
});
