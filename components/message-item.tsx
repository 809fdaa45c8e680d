"use client";

import { useId, useState, type ReactNode } from "react";
import type { PublicMessage, PublicMessageOf, UserMessageMeta } from "@/lib/contract/shapes";
import { failureWords } from "@/lib/client/error-words";
import { useI18n } from "@/lib/client/i18n";
import { useFeedLive } from "@/lib/client/feed-connection";
import { localNoticeText } from "./notice-text";
import { AlertIcon, BellIcon, ChevronIcon, DocIcon, HeraldMark } from "./icons";
import { DeliverySummary } from "./delivery-summary";
import { LocalTime } from "./local-time";
import { BodyCard } from "./report-card";
import { OutcomeBadge } from "./task-badges";

// Every element carries data-kind (docs/contract.md#message-kinds): the kinds are different things
// and tests tell them apart by it, not by styling.

const textClass = "whitespace-pre-wrap [overflow-wrap:anywhere]";

export function UserBubble({
  message,
  pending,
  failed,
  children,
}: {
  message: Pick<PublicMessage, "content" | "createdAt"> & { id?: string; seq?: number; meta?: UserMessageMeta | null };
  pending?: boolean;
  failed?: boolean;
  children?: ReactNode;
}) {
  const { t } = useI18n();
  // The delivery contract the server accepted with the message, if any.
  const delivery = message.meta?.delivery;
  return (
    <div
      data-kind="user"
      data-message-id={message.id}
      data-seq={message.seq}
      data-pending={pending || failed ? "true" : undefined}
      className="flex flex-col items-end gap-1"
    >
      <div
        className={`max-w-[85%] rounded-2xl rounded-br-md px-4 py-2.5 text-[0.95rem] leading-relaxed sm:max-w-[75%] ${textClass} ${
          failed
            ? "border border-danger/40 bg-danger-soft text-fg"
            : "bg-accent text-accent-fg" + (pending ? " opacity-75" : "")
        }`}
      >
        {message.content}
      </div>
      <div className="flex items-center gap-2 px-1 text-xs text-muted">
        {pending ? <span>{t("sending")}</span> : failed ? <span className="text-danger">{t("notSent")}</span> : null}
        {!pending && !failed && <LocalTime iso={message.createdAt} />}
        {delivery && (
          <DeliverySummary
            mode={delivery.mode}
            dueAt={delivery.dueAt}
            reportIfUnfinished={delivery.reportIfUnfinished}
            className="rounded-full border border-border bg-surface px-2 py-0.5"
          />
        )}
      </div>
      {children}
    </div>
  );
}

export function AssistantBubble({
  message,
  streaming,
  truncatedStart,
}: {
  message: Pick<PublicMessage, "content" | "createdAt" | "runId"> & { id?: string; seq?: number };
  streaming?: boolean;
  truncatedStart?: boolean;
}) {
  const { t } = useI18n();
  return (
    <div
      data-kind="assistant"
      data-message-id={message.id}
      data-seq={message.seq}
      data-run-id={message.runId ?? undefined}
      data-streaming={streaming ? "true" : undefined}
      aria-busy={streaming || undefined}
      className="flex items-start gap-3"
    >
      <HeraldMark className="mt-0.5 size-7 shrink-0" />
      <div className="min-w-0 flex-1">
        <div className="mb-1 flex items-baseline gap-2 text-xs text-muted">
          <span className="font-medium text-fg">{t("assistant")}</span>
          {!streaming && <LocalTime iso={message.createdAt} />}
        </div>
        <div className={`text-[0.95rem] leading-relaxed ${textClass}`}>
          {truncatedStart && "…"}
          {message.content}
          {streaming && (
            <span
              aria-hidden="true"
              className="ml-0.5 inline-block h-4 w-1.5 translate-y-0.5 animate-pulse rounded-sm bg-accent motion-reduce:animate-none"
            />
          )}
        </div>
      </div>
    </div>
  );
}

function lastLine(text: string): string {
  const lines = text.split(/\r?\n/).filter((line) => line.trim());
  return lines.length ? lines[lines.length - 1] : text;
}

/** A task's progress proposals: the latest line up front, the rest on demand. */
export function ProgressGroup({ messages, active }: { messages: PublicMessage[]; active: boolean }) {
  const { t } = useI18n();
  const live = useFeedLive();
  const [open, setOpen] = useState(false);
  const historyId = useId();
  const latest = messages[messages.length - 1];
  const title = (latest.kind === "progress" && latest.meta?.title) || null;

  return (
    <div
      data-kind="progress"
      data-message-id={latest.id}
      data-seq={latest.seq}
      data-task-id={latest.taskId ?? undefined}
      className="rounded-xl border border-border bg-subtle/60 px-4 py-3"
    >
      {/* On a phone the toggle takes a row of its own under the line instead of squeezing it. */}
      <div className="grid grid-cols-[auto_minmax(0,1fr)] items-start gap-x-3 gap-y-1 sm:grid-cols-[auto_minmax(0,1fr)_auto]">
        <span className="relative mt-1.5 flex size-2.5 shrink-0" aria-hidden="true">
          {active && live && (
            <span className="absolute inline-flex size-full animate-ping rounded-full bg-accent/60 motion-reduce:animate-none" />
          )}
          <span className={`relative inline-flex size-2.5 rounded-full ${active ? "bg-accent" : "bg-border-strong"}`} />
        </span>
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-baseline gap-x-2 text-xs text-muted">
            <span className="font-medium tracking-wide uppercase">{t("progressLabel")}</span>
            {title && <span className="truncate">{title}</span>}
            <LocalTime iso={latest.createdAt} />
          </div>
          <p className={`mt-1 text-sm ${textClass}`}>{lastLine(latest.content)}</p>
        </div>
        <button
          type="button"
          aria-expanded={open}
          aria-controls={historyId}
          onClick={() => setOpen((value) => !value)}
          className="col-start-2 -ml-2 flex items-center gap-1 justify-self-start rounded-md px-2 py-1 text-xs font-medium text-accent-text hover:bg-accent-soft sm:col-start-3 sm:ml-0"
        >
          {open ? t("hideHistory") : t("showHistory")}
          <ChevronIcon className={`size-3.5 transition-transform ${open ? "rotate-180" : ""}`} />
        </button>
      </div>
      <ol id={historyId} hidden={!open} className="mt-3 space-y-2 border-t border-border pt-3 pl-5.5">
        {open &&
          messages.map((m) => (
            <li key={m.id} className="text-sm">
              <LocalTime iso={m.createdAt} className="mr-2 text-xs text-muted" />
              <span className={textClass}>{m.content}</span>
            </li>
          ))}
      </ol>
      {open && messages.length > 1 && (
        <p className="mt-2 pl-5.5 text-xs text-muted">{t("progressUpdates", { count: messages.length })}</p>
      )}
    </div>
  );
}

/** How a task's execution ended, from the message's facts (meta), in the reader's language and time zone. */
export function TerminalLine({ message }: { message: PublicMessageOf<"terminal"> }) {
  const { t } = useI18n();
  const meta = message.meta;
  const status = meta?.status ?? null;
  const title = meta?.title || null;
  const completedAt = meta?.completedAt || message.createdAt;
  const tone =
    status === "succeeded"
      ? "bg-ok"
      : status === "failed"
        ? "bg-danger"
        : status === "cancelled" || status === "deadline_exceeded"
          ? "bg-warn"
          : "bg-border-strong";
  let text = message.content;
  if (meta && title) {
    text = t(`terminal_${meta.status}`, { title });
    // The failure's category in the reader's words, else Herald's stored sentence.
    const detail =
      meta.status === "failed"
        ? failureWords(t, { error: meta.error ?? null, errorCode: meta.errorCode ?? null })
        : null;
    if (detail) text += `: ${detail}`;
  }
  return (
    <div
      data-kind="terminal"
      data-message-id={message.id}
      data-seq={message.seq}
      data-status={status ?? undefined}
      className="flex items-center justify-center gap-2 px-2 text-xs text-muted"
    >
      <span className={`size-1.5 shrink-0 rounded-full ${tone}`} aria-hidden="true" />
      <span className={`text-center ${textClass}`}>{text}</span>
      <span aria-hidden="true">·</span>
      <LocalTime iso={completedAt} />
    </div>
  );
}

/** Host facts: never model text, never a copy of a body — only a pointer to one. */
export function NoticeBanner({ message }: { message: PublicMessageOf<"notice"> }) {
  const { t } = useI18n();
  const outcome = message.meta?.outcome || null;
  const publicationId = message.publicationId;
  const key = message.meta?.noticeKey || null;
  const title = message.meta?.title || null;
  const text = key && outcome && title ? localNoticeText(t, { key, outcome, title, publicationId }) : null;

  return (
    <div
      data-kind="notice"
      // An email or a system notification links here: /c/<id>#notice-<noticeId>.
      id={message.meta?.noticeId ? `notice-${message.meta.noticeId}` : undefined}
      tabIndex={-1}
      data-message-id={message.id}
      data-seq={message.seq}
      data-outcome={outcome ?? undefined}
      role="note"
      aria-label={t("noticeLabel")}
      className="flex gap-3 rounded-xl border border-info/25 bg-info-soft px-4 py-3"
    >
      <BellIcon className="mt-0.5 size-4.5 shrink-0 text-info" />
      <div className="min-w-0 flex-1 space-y-1.5">
        <div className="flex flex-wrap items-center gap-2 text-xs">
          <span className="font-semibold tracking-wide text-info uppercase">{t("noticeLabel")}</span>
          {outcome && <OutcomeBadge outcome={outcome} />}
          <LocalTime iso={message.createdAt} className="text-muted" />
        </div>
        {message.content && <p className={`text-sm ${textClass}`}>{text ?? message.content}</p>}
        {publicationId && (
          <a
            href={`#pub-${publicationId}`}
            className="inline-flex items-center gap-1 text-sm font-medium text-accent-text underline-offset-4 hover:underline"
          >
            <DocIcon className="size-4" />
            {t("openReport")}
            {/* The older name stays in the accessible name (docs/contract.md: openBody). */}
            <span className="sr-only"> ({t("openBody")})</span>
          </a>
        )}
      </div>
    </div>
  );
}

export function MessageItem({ message }: { message: PublicMessage }) {
  switch (message.kind) {
    case "user":
      return <UserBubble message={message} />;
    case "assistant":
      return <AssistantBubble message={message} />;
    case "body":
      return <BodyCard message={message} />;
    case "terminal":
      return <TerminalLine message={message} />;
    case "notice":
      return <NoticeBanner message={message} />;
    case "progress":
      return <ProgressGroup messages={[message]} active={false} />;
    default:
      return null;
  }
}

export function InlineAlert({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  return (
    <div
      role="alert"
      className="flex max-w-[85%] flex-wrap items-center gap-x-3 gap-y-2 rounded-lg border border-danger/30 bg-danger-soft px-3 py-2 text-sm text-danger sm:max-w-[75%]"
    >
      <AlertIcon className="size-4 shrink-0" />
      <span className="min-w-0 flex-1">{children}</span>
      {actions}
    </div>
  );
}
