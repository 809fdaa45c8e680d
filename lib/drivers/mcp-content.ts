// What an MCP Tasks server sends and what Herald sends back, made safe and bounded:
// result text, remote-id scrubbing, poll intervals, error kinds, elicitation answers.

import { ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** Poll interval when the server names none. */
const DEFAULT_POLL_MS = 2_000;
const MAX_BODY_BYTES = 256 * 1024;

/** Bounded text for a final body: the preview keeps valid UTF-8 and says it was cut. */
export function boundBody(content: string): string {
  if (Buffer.byteLength(content) <= MAX_BODY_BYTES) return content;
  const note = "\n\n_(truncated: the remote result exceeded 256 KiB; this is a preview)_";
  const preview = Buffer.from(content)
    .subarray(0, MAX_BODY_BYTES - Buffer.byteLength(note))
    .toString("utf8");
  // Drops the replacement characters a cut through a character leaves. Not
  // /\uFFFD+$/: the remote chooses the text, and a long run of U+FFFD that does
  // not end the preview makes that pattern retry from each one (quadratic).
  let end = preview.length;
  while (end > 0 && preview.charCodeAt(end - 1) === 0xfffd) end--;
  return preview.slice(0, end) + note;
}

export function resultText(result: CallToolResult): string {
  const parts = result.content.map((c) => (c.type === "text" ? c.text : `_(${c.type} content omitted)_`));
  const text = parts.join("\n\n").trim();
  if (text) return text;
  if (result.structuredContent !== undefined)
    return "```json\n" + JSON.stringify(result.structuredContent, null, 2) + "\n```";
  return "_(The remote task finished without a text result.)_";
}

/**
 * Remote ids are server-only (public shapes are whitelists); errors, progress and bodies
 * are shown to users, so any echo of the id by the server is masked.
 */
export function hide<T>(value: T, remoteId: string): T {
  if (typeof value === "string") return value.split(remoteId).join("[remote task]") as T;
  if (value instanceof Error) {
    if (value.message.includes(remoteId)) value.message = hide(value.message, remoteId);
    return value;
  }
  if (value === undefined || value === null) return value;
  const json = JSON.stringify(value);
  return json.includes(remoteId) ? (JSON.parse(hide(json, remoteId)) as T) : value;
}

export function pollAfter(ms: unknown): number {
  return typeof ms === "number" && Number.isFinite(ms) && ms > 0 ? ms : DEFAULT_POLL_MS;
}

/** The SDK rejects a reply that breaks the MCP schemas with a ZodError: retrying cannot fix it. */
export function isSchemaViolation(err: unknown): boolean {
  return (
    err instanceof Error &&
    (err.name === "ZodError" || err.name === "$ZodError") &&
    Array.isArray((err as { issues?: unknown }).issues)
  );
}

/** A JSON-RPC error the server sent: the connection itself is fine. */
export function isServerError(err: unknown): err is McpError {
  return err instanceof McpError && err.code !== ErrorCode.ConnectionClosed && err.code !== ErrorCode.RequestTimeout;
}

/** Fits the user's free-text answer to the form the server asked for. */
export function elicitContent(
  schema: { properties?: Record<string, unknown>; required?: string[] } | undefined,
  response: string,
) {
  try {
    const parsed: unknown = JSON.parse(response);
    // A JSON object fills several fields at once.
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
      return parsed as Record<string, string | number | boolean | string[]>;
  } catch {
    // Plain text: one field below.
  }
  const fields = Object.entries(schema?.properties ?? {});
  if (fields.length === 0) return {};
  const [key, def] = fields.find(([k]) => schema?.required?.includes(k)) ?? fields[0];
  const type = (def as { type?: string })?.type;
  const text = response.trim();
  if ((type === "number" || type === "integer") && text !== "" && Number.isFinite(Number(text)))
    return { [key]: Number(text) };
  if (type === "boolean" && /^(true|false|yes|no|y|n|1|0)$/i.test(text))
    return { [key]: /^(true|yes|y|1)$/i.test(text) };
  if (type === "array")
    return {
      [key]: text
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    };
  // Anything else goes as typed; the server validates its own form.
  return { [key]: response };
}
