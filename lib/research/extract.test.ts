import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { ARTICLE } from "@/tests/research-pages";
import { extractText, PAGE_TEXT_MAX_CHARS } from "./extract";

describe("extractText", () => {
  it("keeps an article's main text and drops navigation, sidebars, scripts and the footer", () => {
    const page = extractText("text/html; charset=utf-8", Buffer.from(ARTICLE), "https://www.coastal.example/otters")!;
    expect(page.title).toBe("Sea otters use tools");
    expect(page.site).toBe("Coastal Review");
    expect(page.text).toContain("crack mussels on stones they carry in a pouch");
    expect(page.text).toContain("1,842 hammering bouts");
    expect(page.text).toContain("stones leave wear marks");
    for (const chrome of [
      "NAV-LINK",
      "SIDEBAR-POPULAR",
      "TRACKING-SCRIPT",
      "INLINE-SCRIPT",
      "FOOTER-COPYRIGHT",
      "SUBSCRIBE-FORM",
      "color:red",
    ]) {
      expect(page.text).not.toContain(chrome);
    }
    // Paragraphs stay apart (a section's sentences must not run into each other).
    expect(page.text).toMatch(/pouch under their forelegs\.\n\n/);
    expect(page.hash).toBe(createHash("sha256").update(page.text).digest("hex"));
  });

  it("reads plain text and Markdown as they are; PDF, JSON and images are not read", () => {
    const md = extractText(
      "text/markdown",
      Buffer.from("# Otter notes\n\nThey   float on their backs.\n"),
      "https://notes.example/o.md",
    )!;
    expect(md).toMatchObject({
      title: "Otter notes",
      site: "notes.example",
      text: "# Otter notes\n\nThey float on their backs.",
    });
    expect(extractText("text/plain", Buffer.from("line one\nline two"), "https://www.a.example/t")!.site).toBe(
      "a.example",
    );
    expect(extractText("application/pdf", Buffer.from("%PDF-1.7"), "https://a.example/p.pdf")).toBeNull();
    // Binary under a text type (a PDF, a file with NUL bytes) is not decoded into garbage text.
    expect(extractText("text/plain", Buffer.from("%PDF-1.4\n1 0 obj"), "https://a.example/p")).toBeNull();
    expect(extractText("", Buffer.from("%PDF-1.4\n<html>"), "https://a.example/p")).toBeNull();
    expect(extractText("text/html", Buffer.from("<html>\u0000\u0001"), "https://a.example/p")).toBeNull();
    expect(extractText("application/json", Buffer.from("{}"), "https://a.example/j")).toBeNull();
    expect(extractText("image/png", Buffer.alloc(10), "https://a.example/i")).toBeNull();
  });

  it("decodes the declared charset (header or meta) and bounds the text", () => {
    const latin1 = Buffer.from(
      '<html><head><meta charset="iso-8859-1"><title>Caf\xe9</title></head><body><p>Cr\xe8me br\xfbl\xe9e</p></body></html>',
      "latin1",
    );
    const page = extractText("text/html", latin1, "https://cafe.example/")!;
    expect(page.title).toBe("Café");
    expect(page.text).toContain("Crème brûlée");
    const huge = extractText("text/plain", Buffer.from("word ".repeat(PAGE_TEXT_MAX_CHARS)), "https://big.example/")!;
    expect(huge.text.length).toBeLessThanOrEqual(PAGE_TEXT_MAX_CHARS);
  });

  it("survives hostile nesting without overflowing the stack", () => {
    const deep = "<div>".repeat(20_000) + "deep text here" + "</div>".repeat(20_000);
    const page = extractText("text/html", Buffer.from(`<html><body>${deep}</body></html>`), "https://deep.example/");
    expect(page?.text ?? "").toContain("deep text here");
  });
});
