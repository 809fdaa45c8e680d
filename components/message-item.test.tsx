import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { Lang } from "@/lib/i18n/dictionaries";
import { I18nProvider } from "@/lib/client/i18n";
import type { PublicMessageOf, TerminalMessageMeta } from "@/lib/contract/shapes";
import { ERROR_CATEGORIES } from "@/lib/errors/categories";
import { TerminalLine } from "./message-item";

const terminal = (content: string, meta: TerminalMessageMeta | null): PublicMessageOf<"terminal"> => ({
  id: "m1",
  conversationId: "c1",
  seq: 9,
  kind: "terminal",
  content,
  taskId: "t1",
  runId: null,
  publicationId: null,
  meta,
  clientMessageId: null,
  createdAt: "2026-01-01T00:00:00.000Z",
});

const text = (message: PublicMessageOf<"terminal">, lang: Lang = "en") =>
  renderToStaticMarkup(
    <I18nProvider initialLang={lang}>
      <TerminalLine message={message} />
    </I18nProvider>,
  ).replace(/<[^>]+>/g, " ");

const at = "2026-01-01T00:00:00.000Z";

describe("TerminalLine", () => {
  it("words a failure from meta by its category, in the reader's language", () => {
    const sentence = ERROR_CATEGORIES.remote_failed;
    const m = terminal(`Failed at ${at}: ${sentence}`, {
      status: "failed",
      completedAt: at,
      title: "Heat pumps",
      errorCode: "remote_failed",
      error: sentence,
    });
    expect(text(m)).toContain("“Heat pumps” failed: The remote service reported that the work failed.");
    expect(text(m, "zh")).toContain("“Heat pumps”失败: 远程服务报告任务失败。");
  });

  it("shows Herald's stored sentence when the failure has no category", () => {
    const m = terminal(`Failed at ${at}: stopped at the deadline`, {
      status: "failed",
      completedAt: at,
      title: "T",
      errorCode: null,
      error: "stopped at the deadline",
    });
    expect(text(m)).toContain("“T” failed: stopped at the deadline");
  });

  it("never reads the failure out of the content", () => {
    const m = terminal(`Failed at ${at}: words only the content has`, {
      status: "failed",
      completedAt: at,
      title: "T",
    });
    expect(text(m)).toContain("“T” failed");
    expect(text(m)).not.toContain("words only the content has");
  });

  it("falls back to the stored content without meta", () => {
    expect(text(terminal(`Finished at ${at}.`, null))).toContain(`Finished at ${at}.`);
  });
});
