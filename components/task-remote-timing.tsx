"use client";

import type { PublicTask } from "@/lib/client/tasks";
import { useI18n } from "@/lib/client/i18n";
import { LocalTime } from "./local-time";

/**
 * A remote task's three clocks, kept apart because they mean different
 * things: the deadline is Herald's promise to the user, the run limit is the
 * remote's own (it may stop the work first), the poll interval is how soon
 * Herald notices a change.
 */
export function TaskRemoteTiming({ task }: { task: Pick<PublicTask, "remote" | "delivery"> }) {
  const { t } = useI18n();
  if (!task.remote) return null;
  // An MCP ttl is often hours, a poll interval seconds: each in the unit that reads naturally.
  const seconds = (s: number | null) => {
    if (s === null) return t("remoteNotStated");
    if (s >= 3600) return t("hoursShort", { hours: Math.round((s / 3600) * 10) / 10 });
    if (s >= 120) return t("minutesShort", { minutes: Math.round(s / 60) });
    return t("secondsShort", { seconds: s });
  };
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-xs" data-testid="remote-timing">
      <dt className="text-muted">{t("remoteDeadline")}</dt>
      <dd>{task.delivery.dueAt ? <LocalTime iso={task.delivery.dueAt} mode="full" /> : t("remoteNoDeadline")}</dd>
      <dt className="text-muted">{t("remoteRunTimeout")}</dt>
      <dd>{seconds(task.remote.runTimeoutSeconds)}</dd>
      <dt className="text-muted">{t("remotePollInterval")}</dt>
      <dd>{seconds(task.remote.pollIntervalSeconds)}</dd>
    </dl>
  );
}
