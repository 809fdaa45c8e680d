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
  })
  .refine((d) => (d.dueInSeconds === undefined) !== (d.dueAt === undefined), {
    message: "give exactly one of dueInSeconds or dueAt",
    path: ["dueInSeconds"],
  });

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
  driver: z.enum(["research"]).optional(),
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
