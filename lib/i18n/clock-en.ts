// The account's clock (Settings), the composer's one due-time control, All tasks' filter and small account words.
export const enClock = {
  settingsUseDeviceZone: "Use this device's time zone ({zone})",
  settingsZoneDiffers: "This device is set to {zone}; times here are shown in {account}.",
  dueKind: "Due",
  dueKindIn: "In minutes",
  dueKindAt: "At a time of day",
  tasksFilter: "Filter by status",
  tasksFilterAll: "All",
  tasksFilterRunning: "Running",
  tasksFilterDone: "Done",
  tasksFilterFailed: "Failed or cancelled",
  tasksFilterEmpty: "No tasks with this status.",
  tasksDeletedChat: "From a deleted chat",
  tasksOpenReport: "Open report",
  copyKey: "Copy key",
  keyCopied: "Copied",
  emailOffReset: "Forgot your password? This server sends no email, so ask the person who runs it to reset it for you.",
};
