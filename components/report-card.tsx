"use client";

import { useEffect, useId, useState } from "react";
import type { PublicMessageOf } from "@/lib/contract/shapes";
import { useI18n } from "@/lib/client/i18n";
import { ChevronIcon, DocIcon } from "./icons";
import { LocalTime } from "./local-time";
import { ReportBody } from "./report-body";
import { ReportDiff } from "./report-diff";
import { useTaskBodies } from "./report-versions";
import { ReportView } from "./report-view";
import { Button } from "./ui/button";

type Body = PublicMessageOf<"body">;

// Every body keeps data-kind, data-partial, data-publication-id and its #pub- id
// (docs/contract.md): notices link to it, collapsed or not.

/** A published body: the newest version of its task in full, earlier ones folded to one line. */
export function BodyCard({ message }: { message: Body }) {
  const bodies = useTaskBodies(message);
  const index = bodies.findIndex((b) => b.id === message.id);
  const next = index >= 0 && index < bodies.length - 1 ? bodies[bodies.length - 1] : null;
  return next ? <EarlierVersion message={message} latest={next} /> : <LatestVersion message={message} />;
}

function bodyAttrs(message: Body) {
  const publicationId = message.publicationId;
  return {
    "data-kind": "body",
    "data-message-id": message.id,
    "data-seq": message.seq,
    "data-publication-id": publicationId ?? undefined,
    "data-partial": message.meta?.partial === true ? "true" : "false",
    id: publicationId ? `pub-${publicationId}` : undefined,
    tabIndex: -1,
  } as const;
}

function LatestVersion({ message }: { message: Body }) {
  const { t } = useI18n();
  const version = message.meta?.version;
  const partial = message.meta?.partial === true;
  const title = message.meta?.title || t("publishedBody");
  const anchor = `src-${useId().replace(/[^a-zA-Z0-9]/g, "")}`;
  return (
    <article
      {...bodyAttrs(message)}
      className="pub-target overflow-hidden rounded-2xl border border-border bg-surface shadow-sm"
    >
      <header className="flex flex-wrap items-center gap-2 border-b border-border bg-subtle/50 px-4 py-2.5">
        <DocIcon className="size-4 text-muted" />
        <span className="text-sm font-semibold">{title}</span>
        <span
          className={`rounded-full px-2 py-0.5 text-xs font-medium ${partial ? "bg-warn-soft text-warn" : "bg-ok-soft text-ok"}`}
        >
          {partial ? t("partial") : t("final")}
        </span>
        {version !== undefined && (
          <span className="rounded-full border border-border px-2 py-0.5 font-mono text-xs text-muted">v{version}</span>
        )}
        <LocalTime iso={message.createdAt} className="ml-auto text-xs text-muted" />
      </header>
      <ReportBody text={message.content} anchorPrefix={anchor} className="px-4 py-3 text-[0.95rem] leading-relaxed" />
      <footer className="flex flex-wrap items-center gap-2 border-t border-border px-4 py-2.5">
        <ReportView message={message} title={title} />
      </footer>
    </article>
  );
}

/** An earlier version: one line that opens to its text and a comparison with the newest. */
function EarlierVersion({ message, latest }: { message: Body; latest: Body }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const [comparing, setComparing] = useState(false);
  const contentId = useId();
  const diffId = useId();
  const sourcesPrefix = `src-${useId().replace(/[^a-zA-Z0-9]/g, "")}`;
  const version = message.meta?.version;
  const partial = message.meta?.partial === true;
  const latestVersion = latest.meta?.version;
  const anchor = message.publicationId ? `#pub-${message.publicationId}` : null;

  // A notice's link to this version opens it.
  useEffect(() => {
    if (!anchor) return;
    const sync = () => {
      if (window.location.hash === anchor) setOpen(true);
    };
    sync();
    window.addEventListener("hashchange", sync);
    return () => window.removeEventListener("hashchange", sync);
  }, [anchor]);

  const label =
    version !== undefined
      ? t(partial ? "reportVersionPartial" : "reportVersionFinal", { version })
      : partial
        ? t("partial")
        : t("final");
  return (
    <article {...bodyAttrs(message)} className="pub-target rounded-xl border border-border bg-surface/60">
      <header className="flex flex-wrap items-center gap-2 px-3 py-1.5">
        <button
          type="button"
          aria-expanded={open}
          aria-controls={contentId}
          onClick={() => setOpen((v) => !v)}
          className="flex min-h-8 items-center gap-1.5 rounded-md px-1 text-sm font-medium hover:bg-subtle"
        >
          <ChevronIcon className={`size-3.5 transition-transform ${open ? "" : "-rotate-90"}`} />
          <DocIcon className="size-4 text-muted" />
          {label}
        </button>
        <LocalTime iso={message.createdAt} className="ml-auto text-xs text-muted" />
      </header>
      <div id={contentId} hidden={!open} className="space-y-3 border-t border-border px-4 py-3">
        {open && (
          <>
            <ReportBody
              text={message.content}
              anchorPrefix={sourcesPrefix}
              className="text-[0.95rem] leading-relaxed"
            />
            <Button
              variant="secondary"
              size="md"
              aria-expanded={comparing}
              aria-controls={diffId}
              onClick={() => setComparing((v) => !v)}
            >
              {comparing ? t("reportHideCompare") : t("reportCompare", { version: latestVersion ?? "?" })}
            </Button>
            <div id={diffId} hidden={!comparing}>
              {comparing && <ReportDiff before={message.content} after={latest.content} afterVersion={latestVersion} />}
            </div>
          </>
        )}
      </div>
    </article>
  );
}
