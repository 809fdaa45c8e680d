// Chinese for sources-en.ts, key for key.
import type { enSources } from "./sources-en";

export const zhSources: { [K in keyof typeof enSources]: string } = {
  sourcesTitle: "参考来源",
  sourcesRead: "已读 {n} 个来源",
  sourcesReadOne: "已读 1 个来源",
  sourcesSearches: "{n} 次网络搜索",
  sourcesNone: "尚未读到来源",
  sourcesWithoutOff: "未参考任何资料：此服务器关闭了网络搜索",
  sourcesWithoutUnavailable: "未参考任何资料：网络搜索不可用",
  sourcesWithoutNoneFound: "未参考任何资料：没有读到相关网页",
  sourceCitation: "来源 {n}",
};
