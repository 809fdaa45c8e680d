/** The agent's tool names: shared by the tool definitions and the offline model that calls them. */
export const TOOLS = {
  start: "start_background_task",
  list: "list_background_tasks",
  cancel: "cancel_background_task",
  check: "check_background_task",
  update: "update_background_task",
} as const;
