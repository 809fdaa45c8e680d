import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ReactNode } from "react";
import { I18nProvider } from "@/lib/client/i18n";
import { taskFixture } from "@/lib/client/task-fixture";
import type { Lang } from "@/lib/i18n/dictionaries";
import { TaskEnd } from "./task-row";

const html = (node: ReactNode, lang: Lang = "en") =>
  renderToStaticMarkup(<I18nProvider initialLang={lang}>{node}</I18nProvider>);

describe("an ended task's card", () => {
  // Cancelled after the plan and two of six sections, its last progress line still "Researched 2/6: …".
  const ended = taskFixture("t1", "cancelled", 30, {
    steps: { done: 3, total: 7, at: "2026-11-01T10:00:30.000Z" },
    progress: { text: "Researched 2/6: Tides", at: "2026-11-01T10:00:30.000Z" },
  });

  it("says how it ended and how far it got, in English and Chinese", () => {
    const en = html(<TaskEnd task={ended} />);
    expect(en).toContain('data-status="cancelled"');
    expect(en).toContain("Cancelled. Anything it had already published stays.");
    expect(en).toContain("2 of 6 sections done");
    expect(en).not.toContain("Researched");
    const zh = html(<TaskEnd task={ended} />, "zh");
    expect(zh).toContain("已取消。已经发布的内容会保留。");
    expect(zh).toContain("已完成 2/6 个部分");
  });

  it("words a failure from its category and a deadline stop as a stop", () => {
    const failed = { ...ended, status: "failed" as const, error: "boom", errorCode: "model_unavailable" as const };
    expect(html(<TaskEnd task={failed} />)).toMatch(/Failed: \S/);
    expect(html(<TaskEnd task={{ ...ended, status: "deadline_exceeded" }} />)).toContain("Stopped at its deadline.");
    expect(html(<TaskEnd task={{ ...ended, status: "succeeded" }} />)).toContain("Finished.");
  });
});
