import ReactMarkdown, { type Components } from "react-markdown";
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
    if (!isWebUrl(href)) return <a href={href} title={title}>{children}</a>;
    return (
      <a href={href} title={title} rel={REL} target="_blank">
        {children}
      </a>
    );
  },
};

/**
 * Published bodies are Markdown. react-markdown renders to React elements and
 * ignores raw HTML, so a body (model or remote text) cannot inject markup; the
 * component map above keeps it from loading anything by itself either.
 */
export function Markdown({ text, className }: { text: string; className?: string }) {
  return (
    <div className={cn("markdown [overflow-wrap:anywhere]", className)}>
      <ReactMarkdown components={components}>{text}</ReactMarkdown>
    </div>
  );
}
