// Chinese for usage-en.ts, key for key.
import type { enUsage } from "./usage-en";

export const zhUsage: { [K in keyof typeof enUsage]: string } = {
  providerWaitTitle: "模型服务",
  waitingForProvider: "正在等待模型服务商",
  waitingForProviderHint: "模型服务商暂时出错或限制了请求；恢复后任务会自动继续。",
  usageTitle: "模型用量",
  usageTokens: "共 {total} 个 token（读入 {input}，写出 {output}）",
  usageRequests: "向模型请求了 {n} 次",
  usageRequestsOne: "向模型请求了 1 次",
  usageCost: "估计约 ${cost}",
  usageNone: "尚未报告 token 用量",
  budgetTokens: "{n} 个 token",
  budgetRequestsOne: "1 次模型请求",
  attemptsCountOne: "1 次尝试",
  hist_step_tokens: "{n} 个 token",
};
