import { describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { MAX_UPDATE_CHARS } from "@/lib/contract/schemas";
import { ApiError } from "@/lib/errors/api-error";
import { createConversationFor, signUp } from "@/tests/helpers";
import { startTask } from "./start-task";
import { updateTask } from "./update-task";

describe("updateTask", () => {
  it("refuses new instructions over the chat's limit itself (every caller, not only the routes), and takes them at it", async () => {
    const u = await signUp("UpdateBound");
    const conv = await createConversationFor(u);
    const { task } = await startTask({
      ownerId: u.id,
      conversationId: conv,
      title: "Heat pumps",
      prompt: "Heat pumps",
      clientRequestId: randomUUID(),
    });
    const err = await updateTask(u.id, task.id, "x".repeat(MAX_UPDATE_CHARS + 1)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).field).toBe("message");
    const ok = await updateTask(u.id, task.id, "y".repeat(MAX_UPDATE_CHARS));
    expect(ok.id).toBe(task.id);
  });
});
