import { MAX_AP_METADATA_BYTES, metadataBytes } from "@/lib/contract/ap";
import { MAX_MESSAGE_CHARS, MAX_UPDATE_CHARS } from "@/lib/contract/schemas";
import { ApiError } from "@/lib/errors/api-error";

/**
 * The chat's limits, applied where an Agent Protocol run or thread is made rather
 * than only in the route's schema: a run's prompt is assembled from many message
 * parts (each within the schema), and it is sent to the model on every section.
 */

/** A run that starts a task carries a message; one that interrupts carries new instructions. */
export function assertPromptBounded(prompt: string, as: "message" | "update"): void {
  const max = as === "message" ? MAX_MESSAGE_CHARS : MAX_UPDATE_CHARS;
  // UTF-16 units, as zod's max() counts on the chat's own routes.
  if (prompt.length > max) {
    const what = as === "message" ? "a message" : "new instructions for a running run (multitask_strategy interrupt)";
    throw new ApiError(
      "bad_request",
      `input.messages: the user message is ${prompt.length} characters; ${what} takes at most ${max}`,
      "input.messages",
    );
  }
}

export function assertMetadataBounded(metadata: unknown): void {
  if (metadataBytes(metadata) > MAX_AP_METADATA_BYTES) {
    throw new ApiError("bad_request", `metadata: must be at most ${MAX_AP_METADATA_BYTES} bytes of JSON`, "metadata");
  }
}
