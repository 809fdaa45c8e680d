"use client";

import type { UseQueryResult } from "@tanstack/react-query";
import type { PublicMessage } from "@/lib/contract/shapes";
import type { RunEntry } from "@/lib/client/cache";
import { failureWords } from "@/lib/client/error-words";
import { useI18n } from "@/lib/client/i18n";
import { errorCodeOf } from "@/lib/errors/categories";
import { Button } from "./ui/button";
import { InlineAlert } from "./ui/inline-alert";

/** Above the entries: a placeholder while the first page loads, its failure, or the way to older pages. */
export function HistoryHead({
  query,
  showSkeleton,
  older,
}: {
  query: UseQueryResult<PublicMessage[]>;
  showSkeleton: boolean;
  older: { shown: boolean; loading: boolean; failed: boolean; load: () => void };
}) {
  const { t } = useI18n();
  return (
    <>
      {query.isPending && showSkeleton && (
        <div className="space-y-4" aria-hidden="true">
          <div className="ml-auto h-10 w-2/5 animate-pulse rounded-2xl bg-subtle" />
          <div className="h-16 w-3/5 animate-pulse rounded-2xl bg-subtle" />
        </div>
      )}
      {query.isError && !query.data && (
        <InlineAlert
          framed={false}
          icon={false}
          actions={
            <Button variant="secondary" size="sm" onClick={() => void query.refetch()}>
              {t("reload")}
            </Button>
          }
        >
          {t("messagesFailed")}
        </InlineAlert>
      )}
      {query.data && older.shown && (
        <div className="flex flex-col items-center gap-1">
          <Button
            variant="ghost"
            size="sm"
            onClick={older.load}
            disabled={older.loading}
            aria-busy={older.loading || undefined}
          >
            {older.loading ? t("loadingOlder") : t("loadOlder")}
          </Button>
          {older.failed && <p className="text-xs text-danger">{t("olderFailed")}</p>}
        </div>
      )}
    </>
  );
}

/** Under the entries: the last chat turn ended without a reply. */
export function RunEndedNote({ run }: { run: RunEntry }) {
  const { t } = useI18n();
  return (
    <p className="text-center text-xs text-muted">
      {run.status === "cancelled"
        ? t("runCancelled")
        : t("runFailed", {
            detail: run.error
              ? ` (${failureWords(t, { error: run.error.slice(0, 200), errorCode: errorCodeOf(run.error) })})`
              : "",
          })}
    </p>
  );
}
