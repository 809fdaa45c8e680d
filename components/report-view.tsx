"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { useId, useMemo, useState } from "react";
import type { PublicMessageOf } from "@/lib/contract/shapes";
import { useI18n } from "@/lib/client/i18n";
import { reportHeadings } from "@/lib/client/report";
import { CloseButton } from "./close-button";
import { DocIcon } from "./icons";
import { ReportBody } from "./report-body";
import { ReportActions, ToolButton } from "./report-actions";
import { ShareIcon } from "./report-icons";
import { ReportShare } from "./report-share";
import { ReportToc } from "./report-toc";
import { Button } from "./ui/button";

/**
 * One publication full-width: a table of contents from its headings (beside the
 * text from 1024 px, above it on a phone), copy, downloads and share links. The
 * dialog carries `data-report-print`, so printing it (Download PDF) prints the
 * report alone (app/globals.css).
 */
export function ReportView({ message, title }: { message: PublicMessageOf<"body">; title: string }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const [sharing, setSharing] = useState(false);
  const prefix = `report-${useId().replace(/[^a-zA-Z0-9]/g, "")}`;
  const shareId = useId();
  const headings = useMemo(() => reportHeadings(message.content), [message.content]);
  const version = message.meta?.version;
  const partial = message.meta?.partial === true;
  const versionLabel =
    version !== undefined
      ? t(partial ? "reportVersionPartial" : "reportVersionFinal", { version })
      : partial
        ? t("partial")
        : t("final");

  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger asChild>
        <Button variant="secondary" size="md" className="gap-1.5">
          <DocIcon className="size-4" />
          {t("reportOpen")}
        </Button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40 print:hidden" />
        <Dialog.Content
          data-testid="report-view"
          data-report-print=""
          aria-describedby={undefined}
          className="fixed inset-0 z-50 flex flex-col bg-bg focus:outline-none print:static print:block print:h-auto print:bg-white"
        >
          <div className="flex shrink-0 flex-wrap items-start gap-x-3 gap-y-2 border-b border-border bg-surface px-4 pt-[max(0.75rem,env(safe-area-inset-top))] pb-2 print:hidden">
            <div className="min-w-0 flex-1">
              <Dialog.Title className="text-base font-semibold [overflow-wrap:anywhere]">{title}</Dialog.Title>
              <p className="text-xs text-muted">{versionLabel}</p>
            </div>
            <CloseButton className="-mr-1 sm:order-last" />
            <ReportActions
              content={message.content}
              title={title}
              version={version}
              className="w-full sm:w-auto"
              extra={
                message.publicationId && (
                  <ToolButton
                    icon={<ShareIcon className="size-4" />}
                    label={t("reportShare")}
                    aria-expanded={sharing}
                    aria-controls={shareId}
                    onClick={() => setSharing((v) => !v)}
                  />
                )
              }
            />
          </div>
          <div className="min-h-0 flex-1 overflow-y-auto overscroll-contain print:overflow-visible">
            <div className="mx-auto grid max-w-6xl gap-6 px-4 py-4 pb-[max(1.5rem,env(safe-area-inset-bottom))] lg:grid-cols-[15rem_minmax(0,1fr)] lg:gap-10 lg:py-8">
              <ReportToc
                headings={headings}
                prefix={prefix}
                className="border-b border-border pb-4 lg:sticky lg:top-8 lg:self-start lg:border-b-0 lg:pb-0 print:hidden"
              />
              <div className="min-w-0 space-y-4 lg:col-start-2">
                {sharing && message.publicationId && (
                  <div id={shareId}>
                    <ReportShare publicationId={message.publicationId} />
                  </div>
                )}
                <ReportBody
                  text={message.content}
                  headingPrefix={prefix}
                  anchorPrefix={prefix}
                  className="max-w-3xl text-base leading-relaxed"
                />
              </div>
            </div>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
