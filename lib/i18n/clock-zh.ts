import type { enClock } from "./clock-en";

export const zhClock: { [K in keyof typeof enClock]: string } = {
  settingsUseDeviceZone: "使用本设备的时区（{zone}）",
  settingsZoneDiffers: "本设备的时区是 {zone}；这里的时间按 {account} 显示。",
  dueKind: "期限",
  dueKindIn: "按分钟",
  dueKindAt: "按几点几分",
  tasksFilter: "按状态筛选",
  tasksFilterAll: "全部",
  tasksFilterRunning: "进行中",
  tasksFilterDone: "已完成",
  tasksFilterFailed: "失败或已取消",
  tasksFilterEmpty: "没有此状态的任务。",
  tasksDeletedChat: "来自已删除的对话",
  tasksOpenReport: "打开报告",
  copyKey: "复制密钥",
  keyCopied: "已复制",
  emailOffReset: "忘记密码？此服务器不发送邮件，请联系运行它的人为你重置。",
};
