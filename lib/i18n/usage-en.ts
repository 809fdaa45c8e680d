// UI strings of model usage, cost and provider waits (components/task-usage.tsx, components/delivery-summary.tsx).
// Spread into en.ts; usage-zh.ts is kept key for key by its type.

export const enUsage = {
  providerWaitTitle: "Model provider",
  waitingForProvider: "Waiting for the model provider",
  waitingForProviderHint:
    "The provider is failing or limiting requests right now; the task goes on by itself once it answers.",
  usageTitle: "Model usage",
  usageTokens: "{total} tokens ({input} read, {output} written)",
  usageRequests: "asked the model {n} times",
  usageRequestsOne: "asked the model once",
  usageCost: "≈ ${cost} estimated",
  usageNone: "No tokens reported yet",
  budgetTokens: "{n} tokens",
  budgetRequestsOne: "1 model request",
  attemptsCountOne: "1 attempt",
  hist_step_tokens: "{n} tokens",
};
