// Browser-side wrappers over Herald's JSON API (docs/api.md). Every failure
// becomes a ResponseError so callers can branch on status/code instead of parsing.

import type { ApiErrorBody, PublicConversation, PublicMessage, PublicRun } from "@/lib/contract/shapes";
import type { PublicTask } from "@/lib/contract/task";
import type { PublicTaskDetail } from "@/lib/contract/shapes";
import type { PublicHistoryPage } from "@/lib/contract/history";
import type { PublicSettings, SettingsPatch } from "@/lib/contract/settings";
import type { PublicApiKey } from "@/lib/contract/keys";
import type { PublicWebhookDelivery } from "@/lib/contract/ap";
import type { CreatedShare, PublicShare } from "@/lib/contract/share";

export class ResponseError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field?: string;
  /** Seconds from the server's Retry-After (429, 503). */
  readonly retryAfter?: number;

  constructor(status: number, code: string, message: string, field?: string, retryAfter?: number) {
    super(message);
    this.name = "ResponseError";
    this.status = status;
    this.code = code;
    this.field = field;
    this.retryAfter = retryAfter;
  }

  /** Worth retrying as-is: the request may never have reached the server, or the server was briefly unable. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 408 || this.status === 429 || this.status >= 500;
  }
}

function isErrorBody(value: unknown): value is ApiErrorBody {
  if (typeof value !== "object" || value === null || !("error" in value)) return false;
  const error = (value as { error: unknown }).error;
  return typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string";
}

let redirectingToSignIn = false;
let signedOutElsewhere = false;

/** Another tab of this browser is signing out: from here on, a 401 is that, not an expired session. */
export function noteSignOutElsewhere(): void {
  signedOutElsewhere = true;
}

/** The sign-in page, coming back to this page afterwards (and saying why, when another tab signed out). */
export function signInHref(): string {
  const here = window.location.pathname + window.location.search;
  const href = here === "/" || here.startsWith("/sign-") ? "/sign-in" : `/sign-in?next=${encodeURIComponent(here)}`;
  return signedOutElsewhere ? `${href}${href.includes("?") ? "&" : "?"}signedOut=1` : href;
}

/** Leaves for the sign-in page, once: nothing on this page can work any more, and cached data belongs to that session. */
export function goToSignIn(): void {
  if (redirectingToSignIn || typeof window === "undefined") return;
  redirectingToSignIn = true;
  window.location.assign(signInHref());
}

async function request<T>(path: string, init?: RequestInit & { json?: unknown }): Promise<T> {
  const { json, ...rest } = init ?? {};
  const headers = new Headers(rest.headers);
  headers.set("accept", "application/json");
  if (json !== undefined) headers.set("content-type", "application/json");

  let response: Response;
  try {
    response = await fetch(path, {
      ...rest,
      headers,
      body: json !== undefined ? JSON.stringify(json) : rest.body,
      credentials: "same-origin",
      cache: "no-store",
    });
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === "AbortError") throw cause;
    throw new ResponseError(0, "network", cause instanceof Error ? cause.message : "Network error");
  }

  if (response.status === 204) return undefined as T;

  const text = await response.text();
  let body: unknown = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
  }

  if (!response.ok) {
    if (response.status === 401) goToSignIn();
    const retry = Number(response.headers.get("retry-after"));
    const retryAfter = Number.isFinite(retry) && retry > 0 ? retry : undefined;
    if (isErrorBody(body)) {
      throw new ResponseError(response.status, body.error.code, body.error.message, body.error.field, retryAfter);
    }
    throw new ResponseError(
      response.status,
      statusCode(response.status),
      response.statusText || `HTTP ${response.status}`,
      undefined,
      retryAfter,
    );
  }
  return body as T;
}

function statusCode(status: number): string {
  if (status === 400) return "bad_request";
  if (status === 401) return "unauthorized";
  if (status === 404) return "not_found";
  if (status === 409) return "conflict";
  if (status === 429) return "rate_limited";
  if (status === 503) return "unavailable";
  return "http_error";
}

/**
 * The server may attach the conversation's queued/running runs so a page
 * opened mid-run can show "Thinking…". Absent means the server doesn't report
 * them (then only the feed and this tab's sends tell us).
 */
export type ConversationDetail = PublicConversation & { activeRuns?: PublicRun[] };

export interface SendMessageResult {
  message: PublicMessage;
  run: PublicRun;
}

const SEND_TIMEOUT_MS = 30_000;

/** Page size for message history; the whole history is read page by page. */
export const MESSAGE_PAGE_SIZE = 100;

export function listConversations(signal?: AbortSignal): Promise<{ conversations: PublicConversation[] }> {
  return request("/api/conversations", { signal });
}

export function createConversation(title?: string, options: { draft?: boolean } = {}): Promise<PublicConversation> {
  return request("/api/conversations", {
    method: "POST",
    json: { ...(title ? { title } : {}), ...(options.draft ? { draft: true } : {}) },
  });
}

/** Rename (`title`) and pin (`pinned`). */
export function updateConversation(
  id: string,
  patch: { title?: string; pinned?: boolean },
): Promise<PublicConversation> {
  return request(`/api/conversations/${encodeURIComponent(id)}`, {
    method: "PATCH",
    json: patch,
    signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
  });
}

/** Moves the read mark forward to `seq` (the newest message on screen). */
export function markConversationRead(id: string, seq: number): Promise<PublicConversation> {
  return request(`/api/conversations/${encodeURIComponent(id)}/read`, { method: "POST", json: { seq } });
}

export interface ConversationSearchHit {
  conversation: PublicConversation;
  match: "title" | "message";
  seq: number | null;
  snippet: string | null;
}

export function searchConversations(q: string, signal?: AbortSignal): Promise<{ results: ConversationSearchHit[] }> {
  return request(`/api/conversations/search?${new URLSearchParams({ q })}`, { signal });
}

export function getConversation(id: string, signal?: AbortSignal): Promise<ConversationDetail> {
  return request(`/api/conversations/${encodeURIComponent(id)}`, { signal });
}

export function deleteConversation(id: string): Promise<void> {
  return request(`/api/conversations/${encodeURIComponent(id)}`, { method: "DELETE" });
}

export function listMessages(
  conversationId: string,
  options: { after?: number; limit?: number; signal?: AbortSignal } = {},
): Promise<{ messages: PublicMessage[] }> {
  const params = new URLSearchParams();
  if (options.after !== undefined) params.set("after", String(options.after));
  params.set("limit", String(options.limit ?? MESSAGE_PAGE_SIZE));
  return request(`/api/conversations/${encodeURIComponent(conversationId)}/messages?${params}`, {
    signal: options.signal,
  });
}

/** The `limit` messages just before seq `before` (ascending) and whether older ones exist; PG_INT_MAX reads the newest. */
export function listMessagesBefore(
  conversationId: string,
  before: number,
  options: { limit?: number; signal?: AbortSignal } = {},
): Promise<{ messages: PublicMessage[]; hasOlder: boolean }> {
  const params = new URLSearchParams({ before: String(before), limit: String(options.limit ?? MESSAGE_PAGE_SIZE) });
  return request(`/api/conversations/${encodeURIComponent(conversationId)}/messages?${params}`, {
    signal: options.signal,
  });
}

/** One page of a task's timeline (docs/api.md#task-history). */
export function getTaskHistory(
  id: string,
  options: { after?: string | null; limit?: number; signal?: AbortSignal } = {},
): Promise<PublicHistoryPage> {
  const params = new URLSearchParams();
  if (options.after) params.set("after", options.after);
  if (options.limit) params.set("limit", String(options.limit));
  const query = params.size ? `?${params}` : "";
  return request(`/api/tasks/${encodeURIComponent(id)}/history${query}`, { signal: options.signal });
}

/** Every visible message of a conversation after seq `after` (all of them by default), ascending by seq. */
export async function listAllMessages(
  conversationId: string,
  signal?: AbortSignal,
  from?: number,
): Promise<PublicMessage[]> {
  const all: PublicMessage[] = [];
  let after: number | undefined = from;
  // Bounded so a server that ignores `after` can't spin this forever.
  for (let page = 0; page < 1000; page++) {
    const { messages } = await listMessages(conversationId, { after, signal });
    all.push(...messages);
    if (messages.length < MESSAGE_PAGE_SIZE) break;
    const last = messages[messages.length - 1].seq;
    if (after !== undefined && last <= after) break;
    after = last;
  }
  return all;
}

/** The composer's delivery picker (docs/state-machines.md#delivery-contracts); the server anchors dueAt on the accepted message. */
export interface DeliveryRequest {
  mode: "at" | "by";
  dueInSeconds: number;
  reportIfUnfinished: boolean;
}

export function sendMessage(
  conversationId: string,
  body: { content: string; clientMessageId: string; delivery?: DeliveryRequest; workWith?: string },
): Promise<SendMessageResult> {
  return request(`/api/conversations/${encodeURIComponent(conversationId)}/messages`, {
    method: "POST",
    json: body,
    // A hung request would leave the bubble "Sending…" forever; retrying is safe (same clientMessageId).
    signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
  });
}

/** Page size of the task sheet's list: one request covers active and recent tasks. */
export const TASK_LIST_LIMIT = 100;

export function listTasks(
  options: {
    conversationId?: string | null;
    scope?: "active" | "recent" | "all";
    limit?: number;
    signal?: AbortSignal;
  } = {},
): Promise<{ tasks: PublicTask[] }> {
  const params = new URLSearchParams();
  if (options.conversationId) params.set("conversationId", options.conversationId);
  params.set("scope", options.scope ?? "all");
  params.set("limit", String(options.limit ?? TASK_LIST_LIMIT));
  return request(`/api/tasks?${params}`, { signal: options.signal });
}

export function getTask(id: string, signal?: AbortSignal): Promise<{ task: PublicTaskDetail }> {
  return request(`/api/tasks/${encodeURIComponent(id)}`, { signal });
}

export function cancelTask(id: string): Promise<{ task: PublicTask }> {
  return request(`/api/tasks/${encodeURIComponent(id)}/cancel`, {
    method: "POST",
    signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
  });
}

export function sendTaskInstructions(id: string, message: string): Promise<{ task: PublicTask }> {
  return request(`/api/tasks/${encodeURIComponent(id)}/update`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message }),
    signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
  });
}

export function listWebhookDeliveries(): Promise<{ webhooks: PublicWebhookDelivery[] }> {
  return request("/api/webhooks");
}

export function listApiKeys(): Promise<{ keys: PublicApiKey[] }> {
  return request("/api/keys");
}

export function createApiKey(body: {
  name: string;
  password: string;
  expiresInDays?: number;
}): Promise<PublicApiKey & { key: string }> {
  return request("/api/keys", { method: "POST", json: body, signal: AbortSignal.timeout(SEND_TIMEOUT_MS) });
}

export function revokeApiKey(id: string): Promise<void> {
  return request(`/api/keys/${encodeURIComponent(id)}`, {
    method: "DELETE",
    signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
  });
}

/** DELETE /api/account: the account's own password again (400 naming `password` when wrong). */
export function deleteAccount(password: string): Promise<void> {
  return request("/api/account", {
    method: "DELETE",
    json: { password },
    signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
  });
}

export function listShares(publicationId: string, signal?: AbortSignal): Promise<{ shares: PublicShare[] }> {
  return request(`/api/publications/${encodeURIComponent(publicationId)}/shares`, { signal });
}

export function createShare(publicationId: string): Promise<CreatedShare> {
  return request(`/api/publications/${encodeURIComponent(publicationId)}/shares`, {
    method: "POST",
    signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
  });
}

export function revokeShare(id: string): Promise<void> {
  return request(`/api/shares/${encodeURIComponent(id)}`, {
    method: "DELETE",
    signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
  });
}

export function answerTaskInput(id: string, response: string): Promise<{ task: PublicTask }> {
  return request(`/api/tasks/${encodeURIComponent(id)}/input`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ response }),
    signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
  });
}

/** crypto.randomUUID only exists in secure contexts; plain-http LAN access still needs ids. */
export function newClientId(): string {
  if (typeof crypto !== "undefined" && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function getSettings(signal?: AbortSignal): Promise<PublicSettings> {
  return request("/api/settings", { signal });
}

export function patchSettings(patch: SettingsPatch): Promise<PublicSettings> {
  return request("/api/settings", { method: "PATCH", json: patch });
}

/** The composer's "Work with" picker: opaque ids and public labels (label null: Herald's own research). */
export interface WorkChoice {
  id: string;
  label: string | null;
}

export function getWorkChoices(signal?: AbortSignal): Promise<{ choices: WorkChoice[] }> {
  return request("/api/work-choices", { signal });
}
