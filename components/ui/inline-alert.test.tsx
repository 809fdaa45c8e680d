import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Button } from "./button";
import { InlineAlert } from "./inline-alert";

describe("InlineAlert", () => {
  it("is an alert with an icon, its message and its actions", () => {
    const html = renderToStaticMarkup(
      <InlineAlert
        actions={
          <Button variant="danger" size="sm">
            Try again
          </Button>
        }
      >
        Couldn&apos;t send
      </InlineAlert>,
    );
    expect(html).toMatch(/^<div role="alert" class="[^"]*\bborder-danger\/30 bg-danger-soft\b[^"]*\btext-danger\b/);
    expect(html).toContain("<svg");
    expect(html).toContain("Couldn&#x27;t send");
    expect(html).toMatch(/<button type="button"[^>]*>Try again<\/button>/);
  });

  it("tones, plain text and no icon", () => {
    const html = renderToStaticMarkup(
      <InlineAlert tone="warn" size="xs" framed={false} icon={false} id="e1">
        Stale
      </InlineAlert>,
    );
    expect(html).toContain('id="e1"');
    expect(html).toContain("text-warn");
    expect(html).toContain("text-xs");
    expect(html).not.toContain("bg-warn-soft");
    expect(html).not.toContain("<svg");
  });

  it("stacked and framed: a card with the message above the actions", () => {
    const html = renderToStaticMarkup(
      <InlineAlert stacked actions={<Button>Retry</Button>}>
        Failed
      </InlineAlert>,
    );
    expect(html).toMatch(
      /class="flex flex-col items-start gap-3 border border-danger\/30 bg-danger-soft rounded-xl p-4 text-sm text-danger"/,
    );
    expect(html.indexOf("Failed")).toBeLessThan(html.indexOf("Retry"));
  });
});
