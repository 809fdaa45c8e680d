"use client";

import { useEffect, useState, type ComponentProps, type ReactNode } from "react";
import { useI18n } from "@/lib/client/i18n";
import { markdownForFile, reportFileName } from "@/lib/client/report";
import { CopyIcon, DownloadIcon, PrintIcon } from "./report-icons";
import { Button } from "./ui/button";

/** Class on <html> while the report prints: app/globals.css then prints only `[data-report-print]`. */
const PRINTING = "print-report";

/**
 * PDF is the browser's own print-to-PDF with a print stylesheet: it works
 * offline, keeps the text selectable and searchable, uses the system's fonts for
 * Chinese, and adds no library to the bundle. The reader picks "Save as PDF".
 */
function printReport() {
  const root = document.documentElement;
  // A page that is the report already (the share page) prints as it is.
  if (!document.querySelector("body > [data-report-print]")) {
    window.print();
    return;
  }
  root.classList.add(PRINTING);
  const done = () => {
    root.classList.remove(PRINTING);
    window.removeEventListener("afterprint", done);
  };
  window.addEventListener("afterprint", done);
  window.print();
}

function download(content: string, fileName: string) {
  const url = URL.createObjectURL(new Blob([content], { type: "text/markdown;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  // The click has handed the blob to the download already.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** Copy, download as Markdown, download as PDF: the same three wherever a report is read. */
export function ReportActions({
  content,
  title,
  version,
  className,
  extra,
}: {
  content: string;
  title: string;
  version?: number;
  className?: string;
  /** More buttons on the same row (the report view's Share). */
  extra?: ReactNode;
}) {
  const { t } = useI18n();
  const [status, setStatus] = useState<"" | "copied" | "copyFailed" | "pdf">("");
  useEffect(() => {
    if (!status) return;
    const timer = setTimeout(() => setStatus(""), 6000);
    return () => clearTimeout(timer);
  }, [status]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(markdownForFile(content));
      setStatus("copied");
    } catch {
      setStatus("copyFailed");
    }
  };

  return (
    <div className={className}>
      <div className="flex items-center gap-2 print:hidden">
        <ToolButton icon={<CopyIcon className="size-4" />} label={t("reportCopy")} onClick={() => void copy()} />
        <ToolButton
          icon={<DownloadIcon className="size-4" />}
          label={t("reportDownloadMd")}
          onClick={() => download(markdownForFile(content), reportFileName(title, version, "md"))}
        />
        <ToolButton
          icon={<PrintIcon className="size-4" />}
          label={t("reportDownloadPdf")}
          onClick={() => {
            setStatus("pdf");
            printReport();
          }}
        />
        {extra}
      </div>
      <p role="status" className="mt-1 text-xs text-muted empty:mt-0 sm:min-h-4 print:hidden">
        {status === "copied"
          ? t("reportCopied")
          : status === "copyFailed"
            ? t("reportCopyFailed")
            : status === "pdf"
              ? t("reportPdfHint")
              : ""}
      </p>
    </div>
  );
}

/**
 * A toolbar button: an icon on a phone (the row must fit one line), icon and
 * words from 640 px. The words stay its accessible name at every width.
 */
export function ToolButton({ icon, label, ...props }: { icon: ReactNode; label: string } & ComponentProps<"button">) {
  return (
    <Button
      variant="secondary"
      size="none"
      title={label}
      className="size-9 gap-1.5 rounded-lg text-xs sm:h-8 sm:w-auto sm:px-2.5"
      {...props}
    >
      {icon}
      <span className="sr-only sm:not-sr-only">{label}</span>
    </Button>
  );
}
