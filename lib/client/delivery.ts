// The composer's delivery picker (docs/state-machines.md#delivery-contracts), DOM-free so it can be unit-tested.

export type DeliveryMode = "none" | "at" | "by";

/** The server accepts at most 7 days (lib/contract/schemas.ts). */
export const MAX_DUE_MINUTES = 7 * 24 * 60;

/**
 * Minutes as typed (decimals allowed, "," or ".") → seconds, or null when it
 * isn't a positive duration the server would accept.
 */
export function parseDueMinutes(text: string): number | null {
  const trimmed = text.trim().replace(",", ".");
  if (!/^(\d+\.?\d*|\.\d+)$/.test(trimmed)) return null;
  const minutes = Number(trimmed);
  if (!Number.isFinite(minutes) || minutes <= 0 || minutes > MAX_DUE_MINUTES) return null;
  // Whole milliseconds: 0.1 min is 6 s, not 6.000000000000001.
  return Math.round(minutes * 60_000) / 1000;
}
