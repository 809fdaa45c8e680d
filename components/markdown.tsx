import ReactMarkdown, { type Components, type ExtraProps } from "react-markdown";
import type { ComponentPropsWithoutRef, JSX } from "react";
import { headingId } from "@/lib/client/report";
import { cn } from "./ui/cn";

const REL = "noopener noreferrer nofollow";

/** Absolute http(s) URLs only: they are the ones that leave the app, and the only remote kind we link to. */
function isWebUrl(url: string | undefined): url is string {
  if (!url) return false;
  try {
    const { protocol } = new URL(url);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

/**
 * react-markdown's default urlTransform has already emptied any href/src whose
 * scheme is not http(s), mailto, irc(s), xmpp or relative (so `javascript:` and
 * `data:` arrive as ""). An emptied link renders as its text: `href=""` would
 * still be a (useless) link to the current page.
 */
const components: Components = {
  // An <img> in model or remote text is a zero-click beacon (it fires when the
  // message renders, telling the author who read it, when, and from where). The
  // CSP's img-src already blocks remote hosts; rendering a link keeps the
  // picture one deliberate click away instead of a broken image.
  img({ src, alt }) {
    const url = typeof src === "string" ? src : undefined;
    const label = alt || url || "";
    if (!isWebUrl(url)) return <>{label}</>;
    return (
      <a href={url} title={url} rel={REL} target="_blank">
        {label}
      </a>
    );
  },
  a({ href, title, children }) {
    if (!href) return <>{children}</>;
    if (!isWebUrl(href))
      return (
        <a href={href} title={title}>
          {children}
        </a>
      );
    return (
      <a href={href} title={title} rel={REL} target="_blank">
        {children}
      </a>
    );
  },
};

type HeadingTag = "h1" | "h2" | "h3";

/**
 * Headings with ids from their source line (lib/client/report.ts#headingId), so
 * a table of contents built from the same text can point at them, and
 * focusable, so jumping to one moves the keyboard there too.
 */
function withHeadingIds(prefix: string): Components {
  const heading = (Tag: HeadingTag) =>
    function Heading({ node, children }: ComponentPropsWithoutRef<HeadingTag> & ExtraProps): JSX.Element {
      const line = node?.position?.start.line;
      return (
        <Tag id={line ? headingId(prefix, line) : undefined} tabIndex={-1} className="scroll-mt-4 focus:outline-none">
          {children}
        </Tag>
      );
    };
  return { ...components, h1: heading("h1"), h2: heading("h2"), h3: heading("h3") };
}

/**
 * Published bodies are Markdown. react-markdown renders to React elements and
 * ignores raw HTML, so a body (model or remote text) cannot inject markup; the
 * component map above keeps it from loading anything by itself either.
 * `headingPrefix` gives headings ids for a table of contents.
 */
export function Markdown({
  text,
  className,
  headingPrefix,
}: {
  text: string;
  className?: string;
  headingPrefix?: string;
}) {
  return (
    <div className={cn("markdown [overflow-wrap:anywhere]", className)}>
      <ReactMarkdown components={headingPrefix ? withHeadingIds(headingPrefix) : components}>{text}</ReactMarkdown>
    </div>
  );
}
