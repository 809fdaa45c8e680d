import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { LANGS } from "./dictionaries";
import { OFFLINE_MESSAGES, joinSentences, offlineText } from "./offline";

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe("offline model strings", () => {
  it("every message exists in every language with the same placeholders", () => {
    for (const [id, byLang] of Object.entries(OFFLINE_MESSAGES)) {
      expect(byLang.en, id).not.toBe("");
      for (const lang of LANGS) expect(placeholders(byLang[lang]), `${id}.${lang}`).toEqual(placeholders(byLang.en));
    }
  });

  it("fills placeholders once, leaving values and unknown names as they are", () => {
    expect(offlineText("en", "cancelOk", { title: '"{title}" $& $1' })).toBe(
      `OK, "{title}" $& $1 is cancelled. Anything it already published stays in the conversation.`,
    );
    expect(offlineText("zh", "listHead", { count: 3 })).toBe("这个对话的后台任务（3 个）：");
    expect(offlineText("en", "listHead")).toBe("Background tasks in this conversation ({count}):");
    expect(offlineText("en", "listHead", { other: 1 })).toBe("Background tasks in this conversation ({count}):");
    expect(offlineText("en", "quote", { text: "x" })).toBe('"x"');
  });

  it("spaces sentences the way each language does", () => {
    expect(joinSentences("en", ["One.", "Two."])).toBe("One. Two.");
    expect(joinSentences("zh", ["一。", "二。"])).toBe("一。二。");
  });

  it("is usable by server code: no React, no client modules", () => {
    const source = readFileSync(new URL("./offline.ts", import.meta.url), "utf8");
    expect(source).not.toMatch(/["']use client["']/);
    expect([...source.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[0])).toEqual([
      'import type { Lang } from "./dictionaries";',
    ]);
  });
});
