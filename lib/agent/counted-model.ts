import type { LanguageModelV3 } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";

/**
 * Every model request passes this boundary, so counts are exact: `count` runs
 * (and must succeed) before the request is sent. A false from `count` means the
 * work is no longer ours (lease lost); the request is not sent at all.
 */
export function countedModel(model: LanguageModelV3, count: () => Promise<boolean>): LanguageModelV3 {
  const guard = async () => {
    if (!(await count())) throw new LeaseLostError();
  };
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: "v3",
      wrapGenerate: async ({ doGenerate }) => {
        await guard();
        return doGenerate();
      },
      wrapStream: async ({ doStream }) => {
        await guard();
        return doStream();
      },
    },
  });
}

export class LeaseLostError extends Error {
  constructor() {
    super("lease lost: another worker owns this work now");
  }
}
