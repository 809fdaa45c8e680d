// Chinese for usage-en.ts, key for key.
import type { enUsage } from "./usage-en";

export const zhUsage: { [K in keyof typeof enUsage]: string } = {
  providerWaitTitle: "模型服务",
  waitingForProvider: "正在等待模型服务商",
  waitingForProviderHint: "模型服务商暂时出错或限制了请求；恢复后任务会自动继续。",
  usageTitle: "模型用量",
  usageTokens: "输入 {input} 个 token · 输出 {output} 个 token",
  usageRequests: "{n} 次请求",
  usageCost: "估计约 ${cost}",
  usageNone: "尚未报告 token 用量",
  budgetTokens: "{n} 个 token",
  hist_step_tokens: "{n} 个 token",
};
