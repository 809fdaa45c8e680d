import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Markdown } from "./markdown";
import { headingId, reportHeadings } from "@/lib/client/report";

const html = (text: string) => renderToStaticMarkup(<Markdown text={text} />);

describe("Markdown", () => {
  it("renders a remote image as a link, never as <img>", () => {
    const out = html("look ![x](https://evil.example/b.png) here");
    expect(out).not.toContain("<img");
    expect(out).toContain('<a href="https://evil.example/b.png"');
    expect(out).toContain('rel="noopener noreferrer nofollow"');
    expect(out).toContain('target="_blank"');
    expect(out).toContain(">x</a>");
  });

  it("labels an image without alt text by its URL, and handles reference-style images", () => {
    const out = html("![](http://evil.example/p.gif)\n\n![y][r]\n\n[r]: https://evil.example/r.png");
    expect(out).not.toContain("<img");
    expect(out).toContain(
      '<a href="http://evil.example/p.gif" title="http://evil.example/p.gif" rel="noopener noreferrer nofollow" target="_blank">http://evil.example/p.gif</a>',
    );
    expect(out).toContain('href="https://evil.example/r.png"');
  });

  it("renders non-web image sources as text only", () => {
    for (const src of ["data:image/png;base64,AAAA", "javascript:alert(1)", "/api/metrics", "//evil.example/b.png"]) {
      const out = html(`![alt-${src.length}](${src})`);
      expect(out).not.toContain("<img");
      expect(out).not.toContain("<a");
      expect(out).toContain(`alt-${src.length}`);
    }
  });

  it("ignores raw HTML images", () => {
    const out = html('<img src="https://evil.example/b.png">\n\ntext <img src=https://evil.example/c.png> more');
    expect(out).not.toContain("<img");
  });

  it("never renders a javascript: (or other unsafe) URL as an href", () => {
    for (const href of [
      "javascript:alert(1)",
      "JavaScript:alert(1)",
      "vbscript:x",
      "data:text/html,<script>alert(1)</script>",
    ]) {
      const out = html(`[click](${href})`);
      expect(out).not.toMatch(/href=/);
      expect(out).toContain("click");
    }
    const entity = html("[click](&#106;avascript:alert(1))");
    expect(entity).not.toMatch(/javascript:/i);
  });

  it("opens web links in a new tab without a referrer; keeps relative and mailto links plain", () => {
    expect(html("[docs](https://example.com/a)")).toContain(
      '<a href="https://example.com/a" rel="noopener noreferrer nofollow" target="_blank">docs</a>',
    );
    expect(html("<https://example.com/b>")).toContain(
      'href="https://example.com/b" rel="noopener noreferrer nofollow"',
    );
    expect(html("[home](/c/abc)")).toContain('<a href="/c/abc">home</a>');
    expect(html("[mail](mailto:a@example.test)")).toContain('<a href="mailto:a@example.test">mail</a>');
  });

  it("gives headings the ids the table of contents points at, only when asked", () => {
    const md = "# Title\n\nIntro\n\n## Part **one**\n\n```\n## code\n```\n\n### Deep";
    const out = renderToStaticMarkup(<Markdown text={md} headingPrefix="r1" />);
    const ids = [...out.matchAll(/<h[1-3] id="([^"]+)"/g)].map((m) => m[1]);
    expect(ids).toEqual(reportHeadings(md).map((h) => headingId("r1", h.line)));
    expect(ids).toHaveLength(3);
    expect(html(md)).not.toContain(" id=");
  });
});
