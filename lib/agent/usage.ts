import type { z } from "zod";
import type { LanguageModelV3Usage } from "@ai-sdk/provider";
import { env, PRICE_TABLE } from "@/lib/config/env";

/** Tokens one model request used, as its provider reported them (0 where it reported none). */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  /** Estimated from HERALD_MODEL_PRICES; null when the table has no price for the model. */
  costUsd: number | null;
}

/** USD per million tokens, by model id; "*" prices any model not listed. */
export type PriceTable = z.infer<typeof PRICE_TABLE>;

/** Parses HERALD_MODEL_PRICES (JSON); the env schema runs the same check at start. */
function parsePriceTable(raw: string | undefined): PriceTable | null {
  if (!raw) return null;
  return PRICE_TABLE.parse(JSON.parse(raw));
}

export function usageOf(
  u: LanguageModelV3Usage | undefined,
  modelId: string,
  prices = parsePriceTable(env("HERALD_MODEL_PRICES")),
): TokenUsage | null {
  const input = u?.inputTokens?.total;
  const output = u?.outputTokens?.total;
  if (input === undefined && output === undefined) return null;
  const inputTokens = Math.max(0, Math.round(input ?? 0));
  const outputTokens = Math.max(0, Math.round(output ?? 0));
  const price = prices?.[modelId] ?? prices?.["*"];
  const costUsd = price ? (inputTokens * price.input + outputTokens * price.output) / 1_000_000 : null;
  return { inputTokens, outputTokens, costUsd };
}
