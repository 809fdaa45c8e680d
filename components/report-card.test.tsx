import { renderToStaticMarkup } from "react-dom/server";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { describe, expect, it } from "vitest";
import { I18nProvider } from "@/lib/client/i18n";
import type { Lang } from "@/lib/i18n/dictionaries";
import type { PublicMessageOf } from "@/lib/contract/shapes";
import { taskFixture } from "@/lib/client/task-fixture";
import { BodyCard } from "./report-card";
import { ReportVersionsProvider } from "./report-versions";
import { TaskElapsed, TaskProgress } from "./task-progress";

const body = (id: string, version: number, partial: boolean, content: string): PublicMessageOf<"body"> => ({
  id,
  conversationId: "c1",
  seq: version * 10,
  kind: "body",
  content,
  taskId: "t1",
  runId: null,
  publicationId: `p${version}`,
  meta: { partial, version, title: "EV market" },
  clientMessageId: null,
  createdAt: "2026-01-01T00:00:00.000Z",
});

const render = (node: ReactNode, lang: Lang = "en") =>
  renderToStaticMarkup(
    <QueryClientProvider client={new QueryClient()}>
      <I18nProvider initialLang={lang}>{node}</I18nProvider>
    </QueryClientProvider>,
  );

describe("BodyCard", () => {
  const v1 = body("m1", 1, true, "# EV market\n\n## Background\n\nonly in version one");
  const v2 = body("m2", 2, false, "# EV market\n\n## Background\n\nthe final text");

  it("folds an earlier version to one line and keeps the newest in full with its report view", () => {
    const html = render(
      <ReportVersionsProvider messages={[v1, v2]}>
        <BodyCard message={v1} />
        <BodyCard message={v2} />
      </ReportVersionsProvider>,
    );
    const [first, second] = html.split('data-message-id="m2"');
    expect(first).toContain('data-kind="body"');
    expect(first).toContain('id="pub-p1"');
    expect(first).toContain('data-partial="true"');
    expect(first).toContain("Version 1 (partial)");
    expect(first).toContain('aria-expanded="false"');
    expect(first).not.toContain("only in version one");
    expect(second).toContain("the final text");
    expect(second).toContain("Open report");
    expect(second).toContain("Final");
  });

  it("shows a lone version in full, in Chinese too", () => {
    const html = render(
      <ReportVersionsProvider messages={[v1]}>
        <BodyCard message={v1} />
      </ReportVersionsProvider>,
      "zh",
    );
    expect(html).toContain("only in version one");
    expect(html).toContain("打开报告");
    expect(html).not.toContain("第 1 版（部分）");
  });
});

describe("TaskProgress", () => {
  it("is a progressbar with one count while the task works — research's sections, other drivers' steps — and nothing once it ended", () => {
    // Research: the plan (a step of its own) and one section done of the 4 planned ("Researched 1/4").
    const steps = { done: 2, total: 5, at: "2026-11-01T10:00:10.000Z" };
    const running = taskFixture("t1", "running", 10, {
      steps,
      startedAt: "2026-11-01T10:00:00.000Z",
      driver: "research",
    });
    const html = render(<TaskProgress task={running} />);
    expect(html).toContain('role="progressbar"');
    expect(html).toContain('aria-valuenow="1"');
    expect(html).toContain('aria-valuemax="4"');
    expect(html).toContain("1 of 4 sections done");
    expect(html).not.toMatch(/Step \d|of 5/);
    expect(html).toContain("width:25%");
    expect(render(<TaskProgress task={running} />, "zh")).toContain("已完成 1/4 个部分");
    expect(render(<TaskProgress task={{ ...running, steps: { ...steps, done: 1, total: 2 } }} />)).toContain(
      "0 of 1 section done",
    );
    const remote = { ...running, driver: "mcp" };
    expect(render(<TaskProgress task={remote} />)).toContain("2 of 5 steps done");
    expect(render(<TaskProgress task={remote} />, "zh")).toContain("已完成 2/5 步");
    expect(render(<TaskProgress task={{ ...running, status: "succeeded" }} />)).toBe("");
    expect(render(<TaskProgress task={{ ...running, steps: null }} />)).toBe("");
  });

  it("says how long a finished task took, to the second", () => {
    const done = taskFixture("t1", "succeeded", 75, {
      startedAt: "2026-11-01T10:00:00.000Z",
      completedAt: "2026-11-01T10:01:05.000Z",
      steps: { done: 5, total: 5, at: "2026-11-01T10:01:05.000Z" },
      driver: "research",
    });
    expect(render(<TaskElapsed task={done} />)).toContain("Took 1 min 05 s");
    expect(render(<TaskElapsed task={done} />)).toContain("4 of 4 sections done");
    expect(render(<TaskElapsed task={done} />, "zh")).toContain("用时 1 分 05 秒");
  });
});
