import { ApiError } from "@/lib/errors/api-error";
import { MAX_DUE_SECONDS, type DeliveryContract } from "@/lib/contract/schemas";

/**
 * The promised moment of a contract. `anchor` is the accepted message's time
 * (dueInSeconds counts from it); `now` is the database clock, which bounds an
 * absolute dueAt on both sides so a client's clock cannot stretch the limit.
 */
export function dueAtFrom(d: Pick<DeliveryContract, "dueAt" | "dueInSeconds">, anchor: Date, now: Date): Date {
  const dueAt = d.dueAt ? new Date(d.dueAt) : new Date(anchor.getTime() + (d.dueInSeconds ?? 0) * 1000);
  if (dueAt.getTime() <= now.getTime())
    throw new ApiError("bad_request", "delivery.dueAt: must be in the future", "delivery.dueAt");
  if (dueAt.getTime() > now.getTime() + MAX_DUE_SECONDS * 1000) {
    throw new ApiError("bad_request", "delivery.dueAt: must be at most 7 days from now", "delivery.dueAt");
  }
  return dueAt;
}
