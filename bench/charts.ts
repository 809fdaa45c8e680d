// SVG charts of a bench result, written into docs/charts/ and linked from docs/benchmarks.md. bench/run.ts writes
// them after every run; `npx tsx bench/charts.ts <results.json> [more.json …]` redraws them from saved results (later
// files win key by key, so a small run of one figure can be merged into a full run). A figure missing from the
// results leaves its chart as it was. Plain SVG, no dependency: grouped horizontal bars with their values printed,
// since the bars of one chart often differ by 100×.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface Bar {
  name: string;
  value: number;
}
export interface Group {
  label: string;
  bars: Bar[];
}
export interface Chart {
  file: string;
  title: string;
  unit: string;
  groups: Group[];
  note?: string;
}

const COLORS = ["#2563eb", "#f59e0b", "#10b981", "#ef4444"];
const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const fmt = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

export function renderChart(c: Chart): string {
  const labelW = 220;
  const plotW = 460;
  const barH = 16;
  const gap = 10;
  const names = [...new Set(c.groups.flatMap((g) => g.bars.map((b) => b.name)))];
  const max = Math.max(1e-9, ...c.groups.flatMap((g) => g.bars.map((b) => (Number.isFinite(b.value) ? b.value : 0))));
  let y = 48;
  const body: string[] = [];
  for (const g of c.groups) {
    const h = g.bars.length * barH;
    body.push(`<text x="${labelW - 8}" y="${y + h / 2 + 4}" text-anchor="end" font-size="12">${esc(g.label)}</text>`);
    g.bars.forEach((b, i) => {
      const v = Number.isFinite(b.value) ? b.value : 0;
      const w = Math.max(1, (v / max) * plotW);
      const color = COLORS[names.indexOf(b.name) % COLORS.length];
      body.push(
        `<rect x="${labelW}" y="${y + i * barH}" width="${w.toFixed(1)}" height="${barH - 3}" fill="${color}"><title>${esc(`${g.label} ${b.name}: ${fmt(v)} ${c.unit}`)}</title></rect>`,
      );
      body.push(
        `<text x="${labelW + w + 4}" y="${y + i * barH + barH - 6}" font-size="11">${Number.isFinite(b.value) ? fmt(v) : "—"}</text>`,
      );
    });
    y += h + gap;
  }
  const legendY = y + 8;
  const legend = names.map(
    (n, i) =>
      `<rect x="${labelW + i * 150}" y="${legendY}" width="10" height="10" fill="${COLORS[i % COLORS.length]}"/><text x="${labelW + i * 150 + 14}" y="${legendY + 9}" font-size="11">${esc(n)}</text>`,
  );
  const height = legendY + (c.note ? 40 : 24);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${labelW + plotW + 80}" height="${height}" font-family="system-ui, sans-serif">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="600">${esc(c.title)}</text>`,
    `<text x="12" y="38" font-size="11" fill="#555">${esc(c.unit)}</text>`,
    ...body,
    ...legend,
    c.note ? `<text x="12" y="${legendY + 30}" font-size="10" fill="#555">${esc(c.note)}</text>` : "",
    `</svg>`,
  ].join("\n");
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- results files are free-form JSON

/** The charts a result set supports; each needs its figure's key. */
export function chartsOf(r: Json, atOf: Record<string, string> = {}): Chart[] {
  // Which run a figure came from: merged results keep each key's own run time.
  const whenOf = (key: string) =>
    `run of ${String(atOf[key] ?? r.at ?? "")
      .slice(0, 16)
      .replace("T", " ")} UTC on 2 shared cores`;
  const out: Chart[] = [];
  const rc = r.browserReceipt;
  if (rc && typeof rc === "object") {
    out.push({
      file: "receipt.svg",
      title: "Event commit → browser receipt",
      unit: "milliseconds (lower is better)",
      groups: [
        {
          label: "feed (EventSource)",
          bars: [
            { name: "p50", value: rc.feed.p50 },
            { name: "p99", value: rc.feed.p99 },
          ],
        },
        {
          label: "sheet's 3 s polling",
          bars: [
            { name: "p50", value: rc.sheetPoll3s.p50 },
            { name: "p99", value: rc.sheetPoll3s.p99 },
          ],
        },
        {
          label: "5 s poll loop",
          bars: [
            { name: "p50", value: rc.pollLoop5s.p50 },
            { name: "p99", value: rc.pollLoop5s.p99 },
          ],
        },
      ],
      note: `${rc.changes} task changes, Chromium against next start; ${whenOf("browserReceipt")}`,
    });
  }
  const q = r.queues?.rows as Json[] | undefined;
  if (q?.length) {
    out.push({
      file: "queues-throughput.svg",
      title: "No-op job, claim → complete, concurrency 4",
      unit: "jobs per second (higher is better)",
      groups: q.map((row) => ({ label: row.system, bars: [{ name: "jobs/s", value: row.jobsPerSecond }] })),
      note: whenOf("queues"),
    });
    out.push({
      file: "queues-latency.svg",
      title: "No-op job, add → start",
      unit: "milliseconds (lower is better)",
      groups: q.map((row) => ({
        label: row.system,
        bars: [
          { name: "p50", value: row.addToStartMs.p50 },
          { name: "p99", value: row.addToStartMs.p99 },
        ],
      })),
      note: whenOf("queues"),
    });
  }
  const rs = r.research?.rows as Json[] | undefined;
  if (rs?.length) {
    out.push({
      file: "research-workers.svg",
      title: "Research tasks with 1, 2 and 4 workers",
      unit: "per minute (higher is better)",
      groups: rs.map((row) => ({
        label: `${row.workers} worker${row.workers > 1 ? "s" : ""}`,
        bars: [
          { name: "tasks/min", value: row.tasksPerMinute },
          { name: "steps/min ÷ 5", value: row.taskEquivalentsPerMinute },
        ],
      })),
      note: whenOf("research"),
    });
  }
  const lt = r.listTasks;
  const co = r.conversationOpen;
  if (lt || co) {
    const groups: Group[] = [];
    if (lt) {
      groups.push({
        label: `GET /api/tasks (${lt.tasks} tasks)`,
        bars: [
          { name: "p50", value: lt.allMs.p50 },
          { name: "p95", value: lt.allMs.p95 },
        ],
      });
      groups.push({
        label: "… scope=active",
        bars: [
          { name: "p50", value: lt.activeMs.p50 },
          { name: "p95", value: lt.activeMs.p95 },
        ],
      });
      groups.push({
        label: "… scope=recent",
        bars: [
          { name: "p50", value: lt.recentMs.p50 },
          { name: "p95", value: lt.recentMs.p95 },
        ],
      });
    }
    if (co) {
      groups.push({ label: "open a 5,000-message chat", bars: [{ name: "p50", value: co.firstPageMs.large.p50 }] });
      groups.push({ label: "open a 50-message chat", bars: [{ name: "p50", value: co.firstPageMs.small.p50 }] });
    }
    out.push({
      file: "reads.svg",
      title: "Reads a user waits for",
      unit: "milliseconds (lower is better)",
      groups,
      note: whenOf(lt ? "listTasks" : "conversationOpen"),
    });
  }
  return out;
}

/** Writes every chart the results support; returns the files written. */
export function writeCharts(
  results: Json,
  atOf: Record<string, string> = {},
  dir = path.resolve(import.meta.dirname, "..", "docs", "charts"),
): string[] {
  mkdirSync(dir, { recursive: true });
  return chartsOf(results, atOf).map((c) => {
    const file = path.join(dir, c.file);
    writeFileSync(file, `${renderChart(c)}\n`);
    return file;
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error("usage: npx tsx bench/charts.ts <results.json> [more.json …]");
    process.exit(1);
  }
  const merged: Json = {};
  const atOf: Record<string, string> = {};
  for (const f of files) {
    const r = JSON.parse(readFileSync(f, "utf8")) as Json;
    for (const [k, v] of Object.entries(r)) {
      merged[k] = v;
      atOf[k] = r.at;
    }
  }
  for (const f of writeCharts(merged, atOf)) console.log(`written ${path.relative(process.cwd(), f)}`);
}
