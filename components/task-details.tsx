"use client";

import Link from "next/link";
import { useId, useState, type ReactNode } from "react";
import { errorWords, failureWords } from "@/lib/client/error-words";
import { useAnswerInput, useTaskDetail } from "@/lib/client/queries";
import type { PublicNotice, PublicPublication, PublicTaskDetail } from "@/lib/contract/shapes";
import { isTaskActive, type PublicTask } from "@/lib/client/tasks";
import { useI18n } from "@/lib/client/i18n";
import type { MessageKey } from "@/lib/i18n/dictionaries";
import { DocIcon, SpinnerIcon } from "./icons";
import { LocalTime } from "./local-time";
import { OutcomeBadge } from "./task-badges";
import { TaskInstructions } from "./task-instructions";
import { TaskElapsed } from "./task-progress";
import { TaskTimeline } from "./task-timeline";
import { ProviderWait, TaskUsage } from "./task-usage";
import { TaskSources } from "./task-sources";
import { TaskRemoteTiming } from "./task-remote-timing";
import { Markdown } from "./markdown";
import { localNoticeText } from "./notice-text";
import { Button } from "./ui/button";
import { cn } from "./ui/cn";
import { InlineAlert } from "./ui/inline-alert";

const textClass = "whitespace-pre-wrap [overflow-wrap:anywhere]";

function Part({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="space-y-1.5">
      <h5 className="text-[0.7rem] font-semibold tracking-wide text-muted uppercase">{title}</h5>
      {children}
    </div>
  );
}

function questionOf(request: unknown): string {
  if (request && typeof request === "object" && typeof (request as { question?: unknown }).question === "string") {
    return (request as { question: string }).question;
  }
  return typeof request === "string" ? request : JSON.stringify(request);
}

/** The task's question and an answer box (input_required); remote text is shown as text, never markup. */
function InputAnswer({ task }: { task: PublicTask }) {
  const { t } = useI18n();
  const [answer, setAnswer] = useState("");
  const mutation = useAnswerInput();
  const id = useId();
  const sent = mutation.isSuccess;
  return (
    <Part title={t("inputRequested")}>
      <p className={cn("text-sm", textClass)}>{questionOf(task.inputRequest)}</p>
      {sent ? (
        <p className="text-xs text-muted">{t("answerSent")}</p>
      ) : (
        <form
          className="space-y-2"
          onSubmit={(e) => {
            e.preventDefault();
            if (answer.trim()) mutation.mutate({ task, response: answer.trim() });
          }}
        >
          <label htmlFor={id} className="sr-only">
            {t("yourAnswer")}
          </label>
          <textarea
            id={id}
            value={answer}
            onChange={(e) => setAnswer(e.target.value)}
            rows={2}
            maxLength={4000}
            placeholder={t("yourAnswer")}
            className="w-full rounded-md border border-border bg-bg px-2 py-1.5 text-sm"
          />
          {mutation.isError && (
            <InlineAlert framed={false} size="xs" icon={false}>
              {errorWords(t, mutation.error)}
            </InlineAlert>
          )}
          <Button
            type="submit"
            variant="primary"
            size="md"
            disabled={!answer.trim() || mutation.isPending}
            className="disabled:opacity-50"
          >
            {t("sendAnswer")}
          </Button>
        </form>
      )}
    </Part>
  );
}

type BodyHref = (publicationId: string) => string;

function DetailLoadState({ detail }: { detail: ReturnType<typeof useTaskDetail> }) {
  const { t } = useI18n();
  if (detail.data) return null;
  return (
    <>
      {detail.isPending && (
        <p className="flex items-center gap-2 text-xs text-muted" aria-busy="true">
          <SpinnerIcon className="size-3.5" />
          {t("loadingDetails")}
        </p>
      )}
      {detail.isError && (
        <InlineAlert
          framed={false}
          size="xs"
          actions={
            <Button variant="danger-outline" size="xs" onClick={() => void detail.refetch()}>
              {t("tryAgain")}
            </Button>
          }
        >
          {t("detailsFailed")}
        </InlineAlert>
      )}
    </>
  );
}

function Publications({
  publications,
  bodyHref,
  onNavigate,
}: {
  publications: PublicPublication[];
  bodyHref: BodyHref;
  onNavigate: () => void;
}) {
  const { t } = useI18n();
  return (
    <Part title={t("publications")}>
      {publications.length === 0 ? (
        <p className="text-xs text-muted">{t("noPublications")}</p>
      ) : (
        <ul className="space-y-2">
          {[...publications].reverse().map((pub) => (
            <li key={pub.id} data-publication-id={pub.id} className="rounded-lg border border-border bg-bg">
              <div className="flex flex-wrap items-center gap-2 border-b border-border px-2.5 py-1.5 text-xs">
                <DocIcon className="size-3.5 text-muted" />
                <span
                  className={cn(
                    "rounded-full px-2 py-px font-medium",
                    pub.partial ? "bg-warn-soft text-warn" : "bg-ok-soft text-ok",
                  )}
                >
                  {pub.partial ? t("partial") : t("final")}
                </span>
                <span className="rounded-full border border-border px-1.5 py-px font-mono text-muted">
                  v{pub.version}
                </span>
                <LocalTime iso={pub.createdAt} className="text-muted" />
                <Link
                  href={bodyHref(pub.id)}
                  onClick={onNavigate}
                  className="ml-auto font-medium text-accent-text underline-offset-4 hover:underline"
                >
                  {t("openInConversation")}
                </Link>
              </div>
              <div tabIndex={0} className="max-h-36 overflow-y-auto px-2.5 py-2 text-sm leading-relaxed sm:max-h-48">
                <Markdown text={pub.content} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </Part>
  );
}

function Notices({
  notices,
  title,
  bodyHref,
  onNavigate,
}: {
  notices: PublicNotice[];
  title: string;
  bodyHref: BodyHref;
  onNavigate: () => void;
}) {
  const { t } = useI18n();
  return (
    <Part title={t("notices")}>
      {notices.length === 0 ? (
        <p className="text-xs text-muted">{t("noNotices")}</p>
      ) : (
        <ul className="space-y-2">
          {notices.map((notice) => (
            <li key={notice.id} data-notice-key={notice.key} className="space-y-1">
              <div className="flex flex-wrap items-center gap-2 text-xs">
                {notice.outcome && <OutcomeBadge outcome={notice.outcome} />}
                <LocalTime iso={notice.createdAt} className="text-muted" />
                {notice.publicationId && (
                  <Link
                    href={bodyHref(notice.publicationId)}
                    onClick={onNavigate}
                    className="font-medium text-accent-text underline-offset-4 hover:underline"
                  >
                    {t("openReport")}
                    <span className="sr-only"> ({t("openBody")})</span>
                  </Link>
                )}
              </div>
              <p className={cn("text-xs", textClass)}>
                {(notice.outcome && localNoticeText(t, { ...notice, outcome: notice.outcome, title })) ?? notice.text}
              </p>
            </li>
          ))}
        </ul>
      )}
    </Part>
  );
}

function ProgressHistory({ history }: { history: PublicTaskDetail["progressHistory"] }) {
  const { t } = useI18n();
  if (history.length === 0) return null;
  return (
    <Part title={t("progressHistory")}>
      <ol className="max-h-40 space-y-1 overflow-y-auto text-xs">
        {history.map((p, i) => (
          <li key={`${p.at}-${i}`}>
            <LocalTime iso={p.at} className="mr-2 text-muted" />
            <span className={textClass}>{p.text}</span>
          </li>
        ))}
      </ol>
    </Part>
  );
}

/** What the task has used and waited for: the provider, the remote side, its sources and its usage. */
function TaskCosts({ task }: { task: PublicTask }) {
  const { t } = useI18n();
  return (
    <>
      {task.waitingForProvider && (
        <Part title={t("providerWaitTitle")}>
          <ProviderWait task={task} />
        </Part>
      )}

      {task.remote && (
        <Part title={t("remoteTimingTitle")}>
          <TaskRemoteTiming task={task} />
        </Part>
      )}

      {task.driver === "research" && (task.spent.pagesRead > 0 || task.spent.searches > 0 || task.sourcesNote) && (
        <Part title={t("sourcesTitle")}>
          <TaskSources task={task} />
        </Part>
      )}

      <Part title={t("usageTitle")}>
        <TaskUsage spent={task.spent} />
      </Part>
    </>
  );
}

function TaskTrouble({ task }: { task: PublicTask }) {
  const { t } = useI18n();
  return (
    <>
      {/* A failure is red; an error while still running is a retry under way; once it ended otherwise, an old error is history. */}
      {task.error && (task.status === "failed" || isTaskActive(task.status)) && (
        <Part title={task.status === "failed" ? t("errorLabel") : t("errorRetrying")}>
          <p className={cn("text-xs", task.status === "failed" ? "text-danger" : "text-warn", textClass)}>
            {failureWords(t, task)}
          </p>
        </Part>
      )}

      {(task.cancelRequested || task.cancel.attempts > 0 || task.cancel.lastError) && (
        <Part title={t("cancelAttempts")}>
          <p className="text-xs">
            <span data-testid="cancel-attempts">{task.cancel.attempts}</span>
          </p>
          {task.cancel.lastError && (
            <p className={cn("text-xs text-danger", textClass)}>
              {t("lastCancelError")}: {task.cancel.lastError}
            </p>
          )}
        </Part>
      )}
    </>
  );
}

function NotificationState({ notification }: { notification: PublicTask["notification"] }) {
  const { t } = useI18n();
  return (
    <Part title={t("notification")}>
      <p
        data-notification={notification.status}
        className={cn(
          "text-xs",
          notification.status === "dead_letter" ? "text-danger" : notification.status === "retry" && "text-warn",
          textClass,
        )}
      >
        {notification.status === "retry"
          ? t("notifRetrying", { count: notification.attempts })
          : (t(`notif_${notification.status}` as MessageKey) ?? notification.status)}
        {notification.status !== "retry" && notification.attempts > 0 && (
          <span className="text-muted">
            {" "}
            · {t(notification.attempts === 1 ? "attemptsCountOne" : "attemptsCount", { count: notification.attempts })}
          </span>
        )}
        {notification.error && <span>: {notification.error}</span>}
      </p>
    </Part>
  );
}

/** Published bodies, notices, progress history, errors, cancel attempts and notification state of one task. */
export function TaskDetails({ task, onNavigate }: { task: PublicTask; onNavigate: () => void }) {
  const { t } = useI18n();
  const detail = useTaskDetail(task.id, true);
  const data = detail.data;
  // The list copy may be newer than the detail's (the feed patches both, but only the list is always loaded).
  const current = data && Date.parse(data.updatedAt) >= Date.parse(task.updatedAt) ? data : task;
  const bodyHref = (publicationId: string) => `/c/${encodeURIComponent(task.conversationId)}#pub-${publicationId}`;

  return (
    <div className="mt-3 space-y-4 border-t border-border pt-3 text-sm">
      <DetailLoadState detail={detail} />

      <TaskElapsed task={current} />

      {current.status === "input_required" && <InputAnswer task={current} />}

      {data && <TaskInstructions task={current} instructions={data.instructions} />}

      {data && (
        <>
          <Publications publications={data.publications} bodyHref={bodyHref} onNavigate={onNavigate} />
          <Notices notices={data.notices} title={task.title} bodyHref={bodyHref} onNavigate={onNavigate} />
          <ProgressHistory history={data.progressHistory} />
        </>
      )}

      <TaskCosts task={current} />

      <TaskTrouble task={current} />

      <NotificationState notification={current.notification} />

      <Part title={t("timeline")}>
        <TaskTimeline taskId={task.id} title={task.title} />
      </Part>
    </div>
  );
}
