// Web research on loopback (tests/research-peer.ts, HERALD_FETCH_ALLOW_PRIVATE=1): pages read per minute through
// the production reader (safe fetch with its address checks, robots.txt, Readability on linkedom), three at a time as
// a section reads them; and one research section's latency with five sources — search, five pages read, the offline
// model's extractive text, citations checked, the body assembled (lib/drivers/research.ts). No database: the step's
// commit is measured by the task figures elsewhere.
import path from "node:path";
import type { PeerPage } from "../tests/research-peer";

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

export interface ResearchReadResult {
  pagesPerMinute: number;
  pages: number;
  /** Characters of main text per page. */
  textChars: number;
  /** One section reading five pages, p50/p99 over `rounds`. */
  sectionWithFiveSourcesMs: { n: number; p50: number; p99: number };
}

/** An article of about 20 KiB of HTML with navigation and a footer around it, as a reader meets one. */
function articlePage(i: number): PeerPage {
  const paragraphs = Array.from(
    { length: 40 },
    (_, k) =>
      `Paragraph ${k + 1} of the Zorb otter field study number ${i}: the otters of Lake Zorb were observed at station ${k} over ${i + k} nights, and the crayfish count there was ${(i * 37 + k * 11) % 500}.`,
  );
  return { path: `/study/${i}`, title: `Zorb otter field study ${i}`, lang: "en", paragraphs };
}

export async function researchReadBench(pages = 60, rounds = 10): Promise<ResearchReadResult> {
  // Restored afterwards: workers the run starts later inherit this process's environment.
  const saved = { ...process.env };
  process.env.HERALD_FETCH_ALLOW_PRIVATE = "1";
  const { startResearchPeer, peerEnv } = await import("../tests/research-peer");
  const { readPage } = await import("../lib/research/read-page");
  const { RobotsCache } = await import("../lib/research/robots");
  const { createOfflineModel } = await import("../lib/agent/offline-model");
  const { researchDriver } = await import("../lib/drivers/research");
  const set = Array.from({ length: pages }, (_, i) => articlePage(i));
  const peer = await startResearchPeer({ pages: set });
  try {
    // Pages per minute: every page once, three at a time, one robots.txt for the origin.
    const robots = new RobotsCache();
    const urls = set.map((p) => peer.urlOf(p.path));
    await readPage(urls[0], { robots }); // warm-up: Readability's first parse compiles a lot
    let bytes = 0;
    const t0 = performance.now();
    for (let i = 0; i < urls.length; i += 3) {
      const read = await Promise.all(urls.slice(i, i + 3).map((u) => readPage(u, { robots })));
      bytes += read.reduce((n, r) => n + r.text.length, 0);
    }
    const seconds = (performance.now() - t0) / 1000;

    // A section with five sources: the step as a worker runs it, against the peer.
    Object.assign(process.env, peerEnv(peer), {
      HERALD_RESEARCH_MAX_SOURCES: "20",
      HERALD_RESEARCH_MAX_SEARCHES: "200",
      HERALD_OFFLINE_CHUNK_MS: "0",
      HERALD_RESEARCH_STEP_MS: "0",
    });
    const model = createOfflineModel({ chunkDelayMs: 0 });
    const plan = {
      id: "p",
      taskId: "bench",
      index: 0,
      kind: "plan",
      input: {},
      output: { sections: ["Key facts and figures"], lang: "en" },
      modelRequests: 1,
      inputTokens: 0,
      outputTokens: 0,
      createdAt: new Date(),
    };
    const times: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const task = {
        id: `bench-${r}`,
        title: "Zorb otters",
        prompt: "the Zorb otter field studies",
        options: { simulate: { steps: 1, stepMs: 0 } },
        pendingUpdates: [],
        driverData: {},
      };
      const t = performance.now();
      const outcome = await researchDriver.step({
        task: task as never,
        pendingUpdates: [],
        steps: [plan as never],
        model,
        signal: new AbortController().signal,
        sources: [],
      });
      times.push(performance.now() - t);
      if (outcome.sources?.length !== 5) throw new Error(`section read ${outcome.sources?.length} sources, not 5`);
    }
    return {
      pagesPerMinute: Math.round((urls.length / seconds) * 60),
      pages: urls.length,
      textChars: Math.round(bytes / urls.length),
      sectionWithFiveSourcesMs: {
        n: times.length,
        p50: Number(pct(times, 50).toFixed(1)),
        p99: Number(pct(times, 99).toFixed(1)),
      },
    };
  } finally {
    await peer.close();
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

export function formatResearchRead(r: ResearchReadResult): string {
  return `web research on loopback: ${r.pagesPerMinute} pages read per minute (${r.pages} pages, 3 at a time, robots + Readability); one section with five sources p50 ${r.sectionWithFiveSourcesMs.p50} ms, p99 ${r.sectionWithFiveSourcesMs.p99} ms`;
}

// `npx tsx bench/research-read.ts [pages] [rounds]`: no database needed.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  researchReadBench(Number(process.argv[2] ?? 60), Number(process.argv[3] ?? 10))
    .then((r) => {
      console.log(JSON.stringify(r, null, 2));
      console.log(formatResearchRead(r));
      process.exit(0);
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
