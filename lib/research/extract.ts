import { createHash } from "node:crypto";
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";

/**
 * A fetched body → the text a research step may read: HTML reduced to its
 * main text by Mozilla's Readability (the Firefox reader view) on linkedom,
 * plain text and Markdown as they are. Everything else (PDF, images, JSON) is
 * not read: `null`.
 */

export const PAGE_TEXT_MAX_CHARS = 60_000;
const TITLE_MAX_CHARS = 300;

export interface ExtractedText {
  title: string;
  site: string;
  text: string;
  /** SHA-256 (hex) of `text`: what was read, to compare and to store beside an excerpt. */
  hash: string;
}

type Reader = "html" | "text";

/**
 * PDF is not read: the maintained extractors (unpdf, pdf.js) need Node 22
 * (Promise.withResolvers) and Herald runs on Node 20. A PDF served under a text
 * type, or any body with NUL bytes where text would be, is binary: decoding it
 * as text would hand the model pages of mojibake.
 */
function looksBinary(body: Buffer): boolean {
  const head = body.subarray(0, 1024);
  return head.subarray(0, 5).toString("latin1") === "%PDF-" || head.includes(0);
}

/** Whether a body of this type may be read, asked before the body is downloaded (an empty type is sniffed later). */
export function mayRead(contentType: string): boolean {
  return contentType.split(";")[0]!.trim() === "" || readerFor(contentType, Buffer.alloc(0)) !== null;
}

export function readerFor(contentType: string, body: Buffer): Reader | null {
  if (looksBinary(body)) return null;
  const mime = contentType.split(";")[0]!.trim().toLowerCase();
  if (mime === "text/html" || mime === "application/xhtml+xml") return "html";
  if (mime === "text/plain" || mime === "text/markdown" || mime === "text/x-markdown") return "text";
  if (mime === "") {
    // No type at all: only a body that plainly starts as HTML is read.
    const head = body.subarray(0, 512).toString("latin1").trimStart().toLowerCase();
    if (head.startsWith("<!doctype html") || head.startsWith("<html")) return "html";
  }
  return null;
}

/** The body's text in its declared charset (header, else an HTML meta tag), UTF-8 when unknown or unsupported. */
export function decodeBody(contentType: string, body: Buffer, reader: Reader): string {
  let label = /charset\s*=\s*"?([\w.:-]{1,40})/i.exec(contentType)?.[1];
  if (!label && reader === "html") {
    const head = body.subarray(0, 2048).toString("latin1");
    label = /<meta[^>]{0,200}?charset\s*=\s*["']?([\w.:-]{1,40})/i.exec(head)?.[1];
  }
  try {
    return new TextDecoder(label ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "SVG", "IFRAME", "OBJECT", "CANVAS"]);
const BLOCK = new Set([
  "ADDRESS",
  "ARTICLE",
  "ASIDE",
  "BLOCKQUOTE",
  "BR",
  "DD",
  "DETAILS",
  "DIV",
  "DL",
  "DT",
  "FIGCAPTION",
  "FIGURE",
  "FOOTER",
  "FORM",
  "H1",
  "H2",
  "H3",
  "H4",
  "H5",
  "H6",
  "HEADER",
  "HR",
  "LI",
  "MAIN",
  "NAV",
  "OL",
  "P",
  "PRE",
  "SECTION",
  "SUMMARY",
  "TABLE",
  "TD",
  "TH",
  "TR",
  "UL",
]);

interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
}

/** Text of a DOM subtree with blocks on their own lines; iterative, so a hostile nesting depth cannot overflow the stack. */
function blockText(root: DomNode): string {
  const out: string[] = [];
  const stack: (DomNode | "\n")[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    if (node === "\n") {
      out.push("\n");
      continue;
    }
    if (node.nodeType === 3) {
      out.push(node.textContent ?? "");
      continue;
    }
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) continue;
    const name = node.nodeName.toUpperCase();
    if (SKIP.has(name)) continue;
    const block = BLOCK.has(name);
    if (block) {
      out.push("\n");
      stack.push("\n");
    }
    for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i]!);
  }
  return out.join("");
}

/** Whitespace runs folded, blank lines collapsed, bounded at a word. */
export function tidyText(text: string, max = PAGE_TEXT_MAX_CHARS): string {
  const lines = text
    .normalize("NFC")
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((l) => l.replace(/[ \t\f\v\u00a0\u2000-\u200b\u3000]+/g, " ").trim());
  const kept: string[] = [];
  for (const line of lines) {
    if (line === "" && (kept.length === 0 || kept[kept.length - 1] === "")) continue;
    kept.push(line);
  }
  let out = kept
    .join("\n")
    .trim()
    .replace(/\n{2,}/g, "\n\n");
  if (out.length > max) {
    const cut = out.lastIndexOf(" ", max);
    out = out.slice(0, cut > max * 0.8 ? cut : max).trimEnd();
  }
  return out;
}

function oneLine(s: string | null | undefined): string {
  return (s ?? "").replace(/\s+/g, " ").trim().slice(0, TITLE_MAX_CHARS);
}

function hostOf(url: string): string {
  return new URL(url).hostname.replace(/^www\./, "");
}

function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * Readability walks the tree recursively and some of its passes are
 * superlinear: a page past these bounds (hostile nesting, a huge listing) is
 * read by the iterative fallback instead.
 */
const READABILITY_MAX_DEPTH = 400;
const READABILITY_MAX_ELEMENTS = 30_000;

interface ElementLike {
  children: ArrayLike<ElementLike>;
}

function withinReadabilityBounds(root: ElementLike): boolean {
  const stack: [ElementLike, number][] = [[root, 0]];
  let count = 0;
  while (stack.length) {
    const [el, depth] = stack.pop()!;
    if (++count > READABILITY_MAX_ELEMENTS || depth > READABILITY_MAX_DEPTH) return false;
    for (let i = 0; i < el.children.length; i++) stack.push([el.children[i]!, depth + 1]);
  }
  return true;
}

/** "Title | Site", "Title - Site", "Title — Site" → "Title" when the tail is the site's name. */
function withoutSiteSuffix(title: string, site: string): string {
  if (!site) return title;
  for (const sep of [" | ", " - ", " — ", " – ", " :: "]) {
    if (title.endsWith(sep + site) && title.length > sep.length + site.length)
      return title.slice(0, -(sep.length + site.length)).trim();
  }
  return title;
}

function fromHtml(html: string, url: string): Omit<ExtractedText, "hash"> {
  const { document } = parseHTML(html);
  const pageTitle = oneLine(document.querySelector("title")?.textContent);
  const ogSite = oneLine(document.querySelector('meta[property="og:site_name"]')?.getAttribute("content"));
  // Readability rewrites the document it reads; the fallback below needs the original.
  const article = withinReadabilityBounds(document.documentElement as unknown as ElementLike)
    ? new Readability(parseHTML(html).document as unknown as Document, { charThreshold: 200 }).parse()
    : null;
  let text = "";
  if (article?.content)
    text = tidyText(
      blockText(
        parseHTML(`<!doctype html><html><body>${article.content}</body></html>`).document as unknown as DomNode,
      ),
    );
  if (!text) {
    // Not an article (a short page, a listing): the body without its chrome.
    for (const el of document.querySelectorAll("nav, header, footer, aside, form, script, style, noscript"))
      el.remove();
    text = tidyText(blockText((document.body ?? document) as unknown as DomNode));
  }
  const site = oneLine(article?.siteName) || ogSite || hostOf(url);
  return { title: withoutSiteSuffix(oneLine(article?.title) || pageTitle, site) || hostOf(url), site, text };
}

function fromText(raw: string, url: string): Omit<ExtractedText, "hash"> {
  const text = tidyText(raw);
  const heading = /^#{1,6}[ \t]+(.+)$/m.exec(text.slice(0, 4_000))?.[1];
  const firstLine = text.split("\n", 1)[0];
  return { title: oneLine(heading ?? firstLine) || hostOf(url), site: hostOf(url), text };
}

/** The main text of a fetched body, or null when its type is not one Herald reads. */
export function extractText(contentType: string, body: Buffer, url: string): ExtractedText | null {
  const reader = readerFor(contentType, body);
  if (!reader) return null;
  const decoded = decodeBody(contentType, body, reader);
  const page = reader === "html" ? fromHtml(decoded, url) : fromText(decoded, url);
  return { ...page, hash: sha256(page.text) };
}
