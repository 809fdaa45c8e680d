import { z } from "zod";
import { MAX_MESSAGE_CHARS } from "./schemas";

/**
 * The Agent Protocol surface (LangGraph Platform API routes under /api/ap) as
 * far as a deepagents supervisor and `@langchain/langgraph-sdk` use it. Bodies
 * are loose: the SDK sends many optional fields (stream modes, checkpoints,
 * webhooks…) that Herald does not act on and must not refuse.
 */

/**
 * Caller metadata on a thread or run, as UTF-8 JSON: bounded so a thread row stays small (it is
 * read back on every thread search). A supervisor keeps a key or two there, not documents.
 */
export const MAX_AP_METADATA_BYTES = 4096;

export const metadataBytes = (m: unknown): number => new TextEncoder().encode(JSON.stringify(m ?? {})).byteLength;

const metadata = z
  .record(z.string().max(200), z.unknown())
  .refine((m) => metadataBytes(m) <= MAX_AP_METADATA_BYTES, `must be at most ${MAX_AP_METADATA_BYTES} bytes of JSON`);

export const apThreadCreateBody = z.looseObject({
  metadata: metadata.optional(),
  thread_id: z.uuid().optional(),
  if_exists: z.enum(["raise", "do_nothing"]).optional(),
});

export const apThreadSearchBody = z.looseObject({
  metadata: metadata.optional(),
  ids: z.array(z.uuid()).max(100).optional(),
  limit: z.number().int().min(1).max(100).optional(),
  offset: z.number().int().min(0).max(10_000).optional(),
});

const textPart = z.looseObject({ type: z.string().max(50), text: z.string().max(MAX_MESSAGE_CHARS).optional() });
const inputMessage = z.looseObject({
  role: z.string().max(50).optional(),
  type: z.string().max(50).optional(),
  content: z.union([z.string().max(MAX_MESSAGE_CHARS), z.array(textPart).max(50)]),
});

/**
 * The stream modes Herald serves (docs/api.md#agent-protocol). Others (`debug`, `events`, `tasks`…) are
 * ignored rather than refused: Studio and `useStream` ask for several at once and read what comes.
 */
export const AP_STREAM_MODES = ["values", "updates", "messages-tuple", "custom"] as const;
export type ApStreamMode = (typeof AP_STREAM_MODES)[number];

const streamMode = z.string().max(50);

/** Webhook URLs: http(s) only; the address itself is checked at delivery (lib/research/safe-fetch.ts). */
export const MAX_WEBHOOK_URL_CHARS = 2048;
const webhookUrl = z
  .string()
  .max(MAX_WEBHOOK_URL_CHARS)
  .refine((u) => {
    try {
      const url = new URL(u);
      return (url.protocol === "https:" || url.protocol === "http:") && url.username === "" && url.password === "";
    } catch {
      return false;
    }
  }, "must be an absolute http(s) URL without credentials");

export const apRunCreateBody = z.looseObject({
  assistant_id: z.string().min(1).max(200),
  input: z.looseObject({ messages: z.array(inputMessage).min(1).max(100) }),
  metadata: metadata.nullish(),
  multitask_strategy: z.enum(["reject", "interrupt", "rollback", "enqueue"]).nullish(),
  stream_mode: z.union([streamMode, z.array(streamMode).max(20)]).nullish(),
  webhook: webhookUrl.nullish(),
});

export const apJoinStreamQuery = z.looseObject({
  stream_mode: z.union([streamMode, z.array(streamMode).max(20)]).optional(),
});

export const apAssistantSearchBody = z.looseObject({
  graph_id: z.string().max(200).nullish(),
  name: z.string().max(200).nullish(),
  metadata: metadata.nullish(),
  limit: z.number().int().min(1).max(100).optional(),
  offset: z.number().int().min(0).max(10_000).optional(),
});

export const apAssistantParams = z.object({ id: z.string().min(1).max(200) });

/** `before`: a checkpoint config as the SDK sends it, or the bare checkpoint id. */
export const apHistoryBody = z.looseObject({
  limit: z.number().int().min(1).max(100).optional(),
  before: z
    .union([
      z.string().max(200),
      z.looseObject({ configurable: z.looseObject({ checkpoint_id: z.string().max(200).optional() }).optional() }),
    ])
    .nullish(),
});
export const apHistoryQuery = z.looseObject({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  before: z.string().max(200).optional(),
});

export const apThreadParams = z.object({ id: z.uuid() });
export const apRunParams = z.object({ id: z.uuid(), rid: z.uuid() });

/** Run statuses of the LangGraph API. */
export type ApRunStatus = "pending" | "running" | "error" | "success" | "timeout" | "interrupted";
export type ApThreadStatus = "idle" | "busy" | "interrupted" | "error";

export interface ApThread {
  thread_id: string;
  created_at: string;
  updated_at: string;
  metadata: Record<string, unknown>;
  status: ApThreadStatus;
  values: Record<string, unknown>;
  interrupts: Record<string, unknown>;
}

export interface ApRun {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: string;
  updated_at: string;
  status: ApRunStatus;
  metadata: Record<string, unknown>;
  multitask_strategy: string | null;
  kwargs: Record<string, unknown>;
}

/** A LangChain-serialised message, as `values.messages` holds them. */
export interface ApMessage {
  type: "human" | "ai";
  content: string;
  id: string;
  name: null;
  additional_kwargs: Record<string, never>;
  response_metadata: Record<string, never>;
}

export interface ApCheckpoint {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
}

export interface ApThreadState {
  values: { messages: ApMessage[] };
  next: string[];
  tasks: unknown[];
  checkpoint: ApCheckpoint;
  parent_checkpoint: ApCheckpoint | null;
  metadata: Record<string, unknown>;
  created_at: string | null;
}

/** LangGraph's Assistant. */
export interface ApAssistant {
  assistant_id: string;
  graph_id: string;
  name: string;
  description: string | null;
  config: Record<string, unknown>;
  context: Record<string, unknown>;
  metadata: Record<string, unknown>;
  version: number;
  created_at: string;
  updated_at: string;
}

/** GET /assistants/{id}/schemas. */
export interface ApAssistantSchemas {
  graph_id: string;
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown>;
  state_schema: Record<string, unknown>;
  config_schema: Record<string, unknown>;
  context_schema: Record<string, unknown>;
}

/** A webhook delivery as its key's owner sees it in Settings (GET /api/webhooks). */
export interface PublicWebhookDelivery {
  id: string;
  runId: string;
  threadId: string;
  /** The URL's host only: a webhook URL may carry a token in its path or query. */
  host: string;
  state: "waiting" | "pending" | "delivered" | "dead";
  attempts: number;
  /** A category (address, timeout, network, status, redirects, thread_deleted), never the remote's text. */
  lastError: string | null;
  lastStatus: number | null;
  createdAt: string;
  deliveredAt: string | null;
}
