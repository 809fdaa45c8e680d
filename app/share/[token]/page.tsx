import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { HeraldMark } from "@/components/icons";
import { LocalTime } from "@/components/local-time";
import { ReportBody } from "@/components/report-body";
import { ReportActions } from "@/components/report-actions";
import { ReportToc } from "@/components/report-toc";
import { reportHeadings } from "@/lib/client/report";
import { langOfText } from "@/lib/i18n/detect";
import { dictionaries, translate } from "@/lib/i18n/dictionaries";
import { getServerLang } from "@/lib/i18n/server";
import { readSharedReport } from "@/lib/share/read-shared";

export const dynamic = "force-dynamic";

const read = cache(readSharedReport);

/** Never indexed and never sends the link on as a Referer, whether the link works or not. */
export async function generateMetadata({ params }: { params: Promise<{ token: string }> }): Promise<Metadata> {
  const report = await read((await params).token);
  return {
    title: report?.title ?? "404",
    robots: { index: false, follow: false, nocache: true, googleBot: { index: false, follow: false } },
    referrer: "no-referrer",
  };
}

/**
 * A shared report, read-only, for anyone holding the link (no sign-in): the
 * report and nothing else — no account, no conversation, no other messages.
 * A revoked or unknown link is a plain 404.
 */
export default async function SharedReportPage({ params }: { params: Promise<{ token: string }> }) {
  const report = await read((await params).token);
  if (!report) notFound();
  const d = dictionaries[await getServerLang()];
  const headings = reportHeadings(report.content);
  const versionLabel = translate(d, report.partial ? "reportVersionPartial" : "reportVersionFinal", {
    version: report.version,
  });
  return (
    <main
      data-testid="shared-report"
      className="mx-auto grid max-w-6xl gap-6 px-4 py-6 lg:grid-cols-[15rem_minmax(0,1fr)] lg:gap-10 lg:py-10"
    >
      <header className="flex flex-wrap items-center gap-x-3 gap-y-2 lg:col-span-2">
        <HeraldMark className="size-7 print:hidden" />
        <div className="min-w-0 flex-1">
          <p className="text-xs font-semibold tracking-wide text-muted uppercase">{d.reportSharedBadge}</p>
          <p className="text-xs text-muted">
            {d.reportSharedLead} {versionLabel} · <LocalTime iso={report.createdAt} mode="full" />
          </p>
        </div>
        <ReportActions content={report.content} title={report.title} version={report.version} />
      </header>
      <ReportToc
        headings={headings}
        prefix="shared"
        className="border-b border-border pb-4 lg:sticky lg:top-8 lg:self-start lg:border-b-0 lg:pb-0 print:hidden"
      />
      <article lang={langOfText(report.content) === "zh" ? "zh-CN" : "en"} className="min-w-0 lg:col-start-2">
        <ReportBody
          text={report.content}
          headingPrefix="shared"
          anchorPrefix="shared"
          className="max-w-3xl text-base leading-relaxed"
        />
      </article>
    </main>
  );
}
