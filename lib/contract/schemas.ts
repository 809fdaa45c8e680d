import { z } from "zod";
import { MAX_SEARCH_CHARS, MAX_TITLE_CHARS } from "./input-bounds";

// Request schemas for every route. Limits here are the product's limits.

export const MAX_MESSAGE_CHARS = 16_000;
/** options.simulate (only where HERALD_ALLOW_SIMULATE=1). Pacing holds no worker slot, so a long step costs only a row. */
export const SIMULATE_MAX_STEPS = 50;
export const SIMULATE_MAX_STEP_MS = 3_600_000;
/** The furthest a delivery promise may reach; the same bound for dueInSeconds and dueAt. */
export const MAX_DUE_SECONDS = 7 * 24 * 3600;

/**
 * Every row id is Postgres' `gen_random_uuid()::text` (prisma/schema.prisma), so
 * anything else cannot name a row: the wrapper answers such a path 404 without
 * asking the database (route.ts treats every params failure as not_found).
 */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const isId = (v: string): boolean => ID.test(v);

export const idParams = z.object({ id: z.string().regex(ID, "not an id") });

/** Postgres `integer` (message.seq and friends). */
export const PG_INT_MAX = 2_147_483_647;

/**
 * A query-string integer in [min, max]. Plain decimal digits only: z.coerce
 * would let " 1", "0x10", "1e3" and "" through and turn 1e30 into a value the
 * column cannot hold. An empty value (`?after=`) means "not given".
 */
function queryInt(min: number, max: number) {
  const message = `must be an integer from ${min} to ${max}`;
  return z.preprocess(
    (v) => (v === "" ? undefined : v),
    z
      .string()
      .regex(/^[0-9]{1,10}$/, message)
      .transform(Number)
      .refine((n) => n >= min && n <= max, message)
      .optional(),
  );
}

export const createConversationBody = z.strictObject({
  title: z.string().max(MAX_TITLE_CHARS).optional(),
  /** "New chat": hand back the account's newest conversation nothing was written in (200), if any, instead of another empty one. */
  draft: z.boolean().optional(),
});

/** Pins per account: a pinned list longer than this is no longer a shortcut. */
export const MAX_PINNED_CONVERSATIONS = 20;

export const updateConversationBody = z
  .strictObject({
    title: z.string().trim().min(1, "must not be empty").max(MAX_TITLE_CHARS).optional(),
    pinned: z.boolean().optional(),
  })
  .refine((b) => b.title !== undefined || b.pinned !== undefined, { message: "give title or pinned", path: ["title"] });

export const markReadBody = z.strictObject({
  /** The newest message seq the reader has on screen; the mark never moves back. */
  seq: z.number().int().min(0).max(2_147_483_647),
});

const MAX_SEARCH_RESULTS = 50;

export const searchConversationsQuery = z.object({
  q: z.string().trim().min(1, "must not be empty").max(MAX_SEARCH_CHARS),
  limit: queryInt(1, MAX_SEARCH_RESULTS),
});

export const listMessagesQuery = z
  .object({
    after: queryInt(0, PG_INT_MAX),
    /** The page just before this seq (newest first to read, returned ascending); `PG_INT_MAX` reads the newest page. */
    before: queryInt(1, PG_INT_MAX),
    limit: queryInt(1, 500),
  })
  .refine((q) => q.after === undefined || q.before === undefined, {
    message: "give at most one of after or before",
    path: ["before"],
  });

const EARLIEST_DUE_AT = Date.parse("2000-01-01T00:00:00Z");

/**
 * A coarse guard on this process's clock (a day of slack for clock skew), so a
 * year 9999 or a date the database cannot compare never reaches a command. The
 * exact rule — after now() and at most MAX_DUE_SECONDS past it — is checked
 * against the database clock where the contract is fixed (post-message.ts,
 * start-task.ts).
 */
const dueAtInput = z.iso.datetime({ offset: true }).refine((v) => {
  const t = Date.parse(v);
  return Number.isFinite(t) && t >= EARLIEST_DUE_AT && t <= Date.now() + (MAX_DUE_SECONDS + 24 * 3600) * 1000;
}, "must be in the future and at most 7 days ahead");

export const deliveryInput = z
  .strictObject({
    mode: z.enum(["at", "by"]),
    dueInSeconds: z.number().positive().max(MAX_DUE_SECONDS).optional(),
    dueAt: dueAtInput.optional(),
    reportIfUnfinished: z.boolean().optional(),
    allowOvertime: z.boolean().optional(),
    /** Overtime budget: past a missed dueAt the research stops once any is spent (tokens: input + output). */
    budget: z
      .strictObject({
        maxModelRequests: z.number().int().positive().max(10_000).optional(),
        maxWallSeconds: z
          .number()
          .positive()
          .max(7 * 24 * 3600)
          .optional(),
        maxTokens: z.number().int().positive().max(1_000_000_000).optional(),
      })
      .optional(),
  })
  .refine((d) => (d.dueInSeconds === undefined) !== (d.dueAt === undefined), {
    message: "give exactly one of dueInSeconds or dueAt",
    path: ["dueInSeconds"],
  });

/** A timed-delivery contract as the API and the composer give it (docs/api.md#messages). */
export type DeliveryContract = z.infer<typeof deliveryInput>;

export const postMessageBody = z.strictObject({
  content: z.string().trim().min(1, "must not be empty").max(MAX_MESSAGE_CHARS),
  clientMessageId: z.string().min(1).max(100),
  delivery: deliveryInput.optional(),
  /** The composer's "Work with" picker: an id from GET /api/work-choices (opaque; never a driver name). */
  workWith: z.string().min(1).max(40).optional(),
});

export const listTasksQuery = z.object({
  conversationId: z.string().max(100).optional(),
  scope: z.enum(["active", "recent", "all"]).optional(),
  limit: queryInt(1, 100),
});

export const startTaskBody = z.strictObject({
  conversationId: z.string().min(1).max(100),
  title: z.string().trim().min(1, "must not be empty").max(MAX_TITLE_CHARS),
  prompt: z.string().trim().min(1, "must not be empty").max(MAX_MESSAGE_CHARS),
  /** "research" (native), "mcp:<name>" of a server in HERALD_MCP_SERVERS or "agent:<name>" of one in HERALD_REMOTE_AGENTS. */
  driver: z
    .string()
    .regex(
      /^(research|(?:mcp|agent):[A-Za-z0-9][A-Za-z0-9_.-]{0,62})$/,
      'must be "research", "mcp:<server name>" or "agent:<agent name>"',
    )
    .optional(),
  delivery: deliveryInput.optional(),
  clientRequestId: z.string().min(1).max(100),
  options: z
    .strictObject({
      simulate: z
        .strictObject({
          steps: z.number().int().min(1).max(SIMULATE_MAX_STEPS).optional(),
          stepMs: z.number().int().min(0).max(SIMULATE_MAX_STEP_MS).optional(),
        })
        .optional(),
    })
    .optional(),
});

/** New instructions for a running task (the chat's, the API's and an Agent Protocol interrupt's). */
export const MAX_UPDATE_CHARS = 4000;

export const updateTaskBody = z.strictObject({
  message: z.string().trim().min(1, "must not be empty").max(MAX_UPDATE_CHARS),
});

export const answerInputBody = z.strictObject({
  response: z.string().trim().min(1, "must not be empty").max(4000),
});
