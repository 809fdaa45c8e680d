import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Button, buttonClass } from "./button";

const classes = (s: string) => s.split(" ").sort();

describe("Button", () => {
  it("is type=button unless told otherwise and passes other props through", () => {
    expect(
      renderToStaticMarkup(
        <Button aria-expanded data-testid="x">
          Go
        </Button>,
      ),
    ).toMatch(/^<button type="button" class="[^"]+" aria-expanded="true" data-testid="x">Go<\/button>$/);
    expect(renderToStaticMarkup(<Button type="submit">Send</Button>)).toContain('type="submit"');
  });

  it("composes display, variant, size and the caller's layout classes", () => {
    // The tasks sheet's "View details" as it was before the primitive (plus justify-center and an inherited text-fg).
    expect(classes(buttonClass({ variant: "secondary", size: "md", className: "gap-1" }))).toEqual(
      classes(
        "inline-flex h-8 items-center gap-1 rounded-lg border border-border px-2.5 text-xs font-medium hover:bg-subtle justify-center text-fg",
      ),
    );
    expect(buttonClass({ variant: "primary", size: "xl", block: true })).toMatch(/^flex w-full /);
    expect(buttonClass({ size: "none" })).not.toMatch(/\b(h-|px-|rounded)/);
  });

  it("never sets the same property twice from variant and size (classes are not merged)", () => {
    const variants = [
      "primary",
      "secondary",
      "outline",
      "ghost",
      "muted",
      "danger",
      "danger-outline",
      "warn-outline",
      "overlay",
      "pending",
    ] as const;
    const sizes = ["xs", "sm", "md", "lg", "xl", "icon", "icon-sm", "none"] as const;
    // A rough property key: state/media prefix + what the utility sets.
    const property = (c: string) => {
      const at = c.lastIndexOf(":");
      const [prefix, utility] = [c.slice(0, at + 1), c.slice(at + 1)];
      if (/^text-(xs|sm|base|lg)$/.test(utility)) return `${prefix}font-size`;
      if (utility === "border") return `${prefix}border-width`;
      if (utility === "flex" || utility === "inline-flex") return `${prefix}display`;
      if (/^-?p[xy]?-/.test(utility)) return `${prefix}${utility.replace(/^-/, "").split("-")[0]}`;
      return `${prefix}${utility.split("-")[0]}`;
    };
    for (const variant of variants) {
      for (const size of sizes) {
        const keys = buttonClass({ variant, size }).split(" ").map(property);
        expect(new Set(keys).size, `${variant}/${size}: ${buttonClass({ variant, size })}`).toBe(keys.length);
      }
    }
  });
});
