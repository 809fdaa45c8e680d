import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ReactNode } from "react";
import { I18nProvider } from "@/lib/client/i18n";
import type { Lang } from "@/lib/i18n/dictionaries";
import { ProviderWait, TaskUsage } from "./task-usage";

const html = (node: ReactNode, lang: Lang = "en") =>
  renderToStaticMarkup(<I18nProvider initialLang={lang}>{node}</I18nProvider>);
const spent = { modelRequests: 5, inputTokens: 12_345, outputTokens: 678, costUsd: 0.0301, searches: 0, pagesRead: 0 };

describe("task usage and provider waits in task details", () => {
  it("says in plain words how often the model was asked, the tokens read and written and the estimated cost, in English and Chinese", () => {
    const en = html(<TaskUsage spent={spent} />);
    expect(en).toContain("asked the model 5 times");
    expect(en).toContain("13,023 tokens (12,345 read, 678 written)");
    expect(en).toContain("≈ $0.0301 estimated");
    expect(html(<TaskUsage spent={{ ...spent, modelRequests: 1 }} />)).toContain("asked the model once");
    expect(html(<TaskUsage spent={{ ...spent, modelRequests: 1 }} />)).not.toContain("1 requests");
    const zh = html(<TaskUsage spent={spent} />, "zh");
    expect(zh).toContain("向模型请求了 5 次");
    expect(zh).toContain("共 13,023 个 token（读入 12,345，写出 678）");
    expect(zh).toContain("估计约 $0.0301");
  });

  it("says when no tokens were reported and leaves the cost out without a price table", () => {
    const none = html(
      <TaskUsage
        spent={{ modelRequests: 2, inputTokens: 0, outputTokens: 0, costUsd: null, searches: 0, pagesRead: 0 }}
      />,
    );
    expect(none).toContain("No tokens reported yet");
    expect(none).not.toContain("$");
  });

  it("says the task waits for the model provider only while it does", () => {
    const since = "2026-11-30T12:00:00.000Z";
    expect(html(<ProviderWait task={{ waitingForProvider: { since } }} />)).toContain("Waiting for the model provider");
    expect(html(<ProviderWait task={{ waitingForProvider: { since } }} />, "zh")).toContain("正在等待模型服务商");
    expect(html(<ProviderWait task={{ waitingForProvider: { since } }} />)).toContain("goes on by itself");
    expect(html(<ProviderWait task={{ waitingForProvider: { since } }} compact />)).not.toContain("goes on by itself");
    expect(html(<ProviderWait task={{ waitingForProvider: null }} />)).toBe("");
  });
});
