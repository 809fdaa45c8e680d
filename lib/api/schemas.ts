import { z } from "zod";

// Request schemas for every route. Limits here are the product's limits.

export const MAX_MESSAGE_CHARS = 16_000;
export const MAX_TITLE_CHARS = 200;

export const idParams = z.object({ id: z.string().min(1).max(100) });

export const createConversationBody = z.strictObject({
  title: z.string().max(MAX_TITLE_CHARS).optional(),
});

export const listMessagesQuery = z.object({
  after: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

export const deliveryInput = z
  .strictObject({
    mode: z.enum(["at", "by"]),
    dueInSeconds: z.number().positive().max(7 * 24 * 3600).optional(),
    dueAt: z.iso.datetime({ offset: true }).optional(),
    reportIfUnfinished: z.boolean().optional(),
    allowOvertime: z.boolean().optional(),
    /** Overtime budget: past a missed dueAt the research stops once either is spent. */
    budget: z
      .strictObject({
        maxModelRequests: z.number().int().positive().max(10_000).optional(),
        maxWallSeconds: z.number().positive().max(7 * 24 * 3600).optional(),
      })
      .optional(),
  })
  .refine((d) => (d.dueInSeconds === undefined) !== (d.dueAt === undefined), {
    message: "give exactly one of dueInSeconds or dueAt",
    path: ["dueInSeconds"],
  });

/** A timed-delivery contract as the API and the composer give it (DESIGN §9). */
export type DeliveryContract = z.infer<typeof deliveryInput>;

export const postMessageBody = z.strictObject({
  content: z.string().trim().min(1, "must not be empty").max(MAX_MESSAGE_CHARS),
  clientMessageId: z.string().min(1).max(100),
  delivery: deliveryInput.optional(),
});

export const listTasksQuery = z.object({
  conversationId: z.string().max(100).optional(),
  scope: z.enum(["active", "recent", "all"]).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});

export const startTaskBody = z.strictObject({
  conversationId: z.string().min(1).max(100),
  title: z.string().trim().min(1, "must not be empty").max(MAX_TITLE_CHARS),
  prompt: z.string().trim().min(1, "must not be empty").max(MAX_MESSAGE_CHARS),
  /** "research" (native) or "mcp:<name>" of a server in HERALD_MCP_SERVERS. */
  driver: z.string().regex(/^(research|mcp:[A-Za-z0-9][A-Za-z0-9_.-]{0,62})$/, 'must be "research" or "mcp:<server name>"').optional(),
  delivery: deliveryInput.optional(),
  clientRequestId: z.string().min(1).max(100),
  options: z
    .strictObject({
      simulate: z
        .strictObject({
          steps: z.number().int().min(1).max(50).optional(),
          stepMs: z.number().int().min(0).max(3_600_000).optional(),
        })
        .optional(),
    })
    .optional(),
});

export const updateTaskBody = z.strictObject({
  message: z.string().trim().min(1, "must not be empty").max(4000),
});

export const answerInputBody = z.strictObject({
  response: z.string().trim().min(1, "must not be empty").max(4000),
});
