"use client";

import { useId, useState } from "react";
import type { PublicHistoryItem } from "@/lib/contract/history";
import { useTaskHistory } from "@/lib/client/queries";
import { useI18n } from "@/lib/client/i18n";
import { ChevronIcon, SpinnerIcon } from "./icons";
import { LocalTime } from "./local-time";
import { localNoticeText } from "./notice-text";
import { statusKey } from "./task-badges";
import { Button } from "./ui/button";
import { cn } from "./ui/cn";
import { InlineAlert } from "./ui/inline-alert";

const textClass = "whitespace-pre-wrap [overflow-wrap:anywhere]";

function Line({ item, title }: { item: PublicHistoryItem; title: string }) {
  const { t, locale } = useI18n();
  switch (item.type) {
    case "created":
      return <>{t("hist_created")}</>;
    case "cancel_requested":
      return <>{t("hist_cancel_requested")}</>;
    case "step":
      return (
        <>
          {t("hist_step", { index: item.index })}
          {item.title && <span className="text-muted"> · {item.title}</span>}
          {item.instructions.length > 0 && (
            <span className="text-muted"> · {t("hist_step_instructions", { count: item.instructions.length })}</span>
          )}
          {item.inputTokens + item.outputTokens > 0 && (
            <span className="text-muted">
              {" "}
              · {t("hist_step_tokens", { n: (item.inputTokens + item.outputTokens).toLocaleString(locale) })}
            </span>
          )}
        </>
      );
    case "progress":
      return <span className="text-muted">{item.text}</span>;
    case "publication":
      return <>{t("hist_publication", { version: item.version, kind: item.partial ? t("partial") : t("final") })}</>;
    case "source":
      return (
        <>
          {t("hist_source", { n: item.n })}{" "}
          <a
            href={item.url}
            target="_blank"
            rel="noopener noreferrer"
            className="text-accent-text underline-offset-4 hover:underline [overflow-wrap:anywhere]"
          >
            {item.title || item.site}
          </a>
        </>
      );
    case "status":
      return <>{t("hist_status", { status: t(statusKey(item.to)) })}</>;
    case "terminal":
      return <span className="text-muted">{item.text}</span>;
    case "cancel_attempt":
      return item.ended ? (
        <>{t("hist_cancel_attempt_ended", { attempt: item.attempt })}</>
      ) : (
        <span className="text-warn">
          {t("hist_cancel_attempt_failed", { attempt: item.attempt })}
          {item.error && `: ${item.error}`}
        </span>
      );
    case "notice":
      return <>{(item.outcome && localNoticeText(t, { ...item, outcome: item.outcome, title })) ?? item.text}</>;
    case "notification":
      return item.status === "retry" ? (
        <span className="text-warn">
          {t("hist_notification_retry", { attempts: item.attempts })}
          {item.error && `: ${item.error}`}
        </span>
      ) : (
        <>{t(item.status === "delivered" ? "hist_notification_delivered" : "hist_notification_dispatched")}</>
      );
    case "dead_letter":
      return (
        <span className="text-danger">
          {t("hist_dead_letter", { attempts: item.attempts })}
          {item.error && `: ${item.error}`}
        </span>
      );
  }
}

/**
 * The task's whole story in order (GET /api/tasks/:id/history), compact: one
 * line per entry, more pages on demand. Closed until asked for: it retells
 * what the parts above show (notices, states), and is only fetched when read.
 */
export function TaskTimeline({ taskId, title }: { taskId: string; title: string }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const listId = useId();
  return (
    <div className="space-y-1.5">
      <button
        type="button"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen((v) => !v)}
        className="-ml-2 flex items-center gap-1 rounded-md px-2 py-1 text-xs font-medium text-accent-text hover:bg-accent-soft"
      >
        {open ? t("hideTimeline") : t("showTimeline")}
        <ChevronIcon className={cn("size-3.5 transition-transform", open && "rotate-180")} />
      </button>
      <div id={listId} hidden={!open}>
        {open && <TimelineList taskId={taskId} title={title} />}
      </div>
    </div>
  );
}

function TimelineList({ taskId, title }: { taskId: string; title: string }) {
  const { t } = useI18n();
  const history = useTaskHistory(taskId, true);
  const items = history.data?.pages.flatMap((p) => p.items) ?? [];
  if (history.isError && !history.data) {
    return (
      <InlineAlert
        framed={false}
        size="xs"
        actions={
          <Button variant="danger-outline" size="xs" onClick={() => void history.refetch()}>
            {t("tryAgain")}
          </Button>
        }
      >
        {t("timelineFailed")}
      </InlineAlert>
    );
  }
  if (!history.data) return <SpinnerIcon className="size-3.5 text-muted" aria-hidden="true" />;
  return (
    <div className="space-y-1.5">
      <ol
        data-testid="task-timeline"
        tabIndex={0}
        aria-label={t("timeline")}
        className="max-h-48 space-y-1 overflow-y-auto text-xs"
      >
        {items.map((item) => (
          <li key={item.id} data-history-type={item.type} className="flex gap-2">
            <LocalTime iso={item.at} seconds className="shrink-0 text-muted tabular-nums" />
            <span className={cn("min-w-0", textClass)}>
              <Line item={item} title={title} />
            </span>
          </li>
        ))}
      </ol>
      {history.hasNextPage && (
        <Button
          variant="ghost"
          size="xs"
          onClick={() => void history.fetchNextPage()}
          disabled={history.isFetchingNextPage}
        >
          {t("timelineMore")}
        </Button>
      )}
    </div>
  );
}
