"use client";

import { useId, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { createShare, listShares, revokeShare } from "@/lib/client/api";
import { errorWords } from "@/lib/client/error-words";
import { useI18n } from "@/lib/client/i18n";
import type { CreatedShare } from "@/lib/contract/share";
import { LocalTime } from "./local-time";
import { Button } from "./ui/button";
import { InlineAlert } from "./ui/inline-alert";

/**
 * Share links for one publication: off until the owner creates one; the link is
 * shown once (the server keeps only its hash); each can be revoked.
 */
export function ReportShare({ publicationId }: { publicationId: string }) {
  const { t } = useI18n();
  const qc = useQueryClient();
  const key = ["shares", publicationId];
  const headingId = useId();
  const [created, setCreated] = useState<CreatedShare | null>(null);
  const [copied, setCopied] = useState(false);
  const [revoked, setRevoked] = useState(false);
  const shares = useQuery({ queryKey: key, queryFn: ({ signal }) => listShares(publicationId, signal) });
  const create = useMutation({
    mutationFn: () => createShare(publicationId),
    onSuccess: (share) => {
      setCreated(share);
      setCopied(false);
      setRevoked(false);
      void qc.invalidateQueries({ queryKey: key });
    },
  });
  const revoke = useMutation({
    mutationFn: revokeShare,
    onSuccess: (_, id) => {
      if (created?.id === id) setCreated(null);
      setRevoked(true);
      void qc.invalidateQueries({ queryKey: key });
    },
  });
  const url = created ? `${window.location.origin}${created.path}` : "";
  const error = create.error ?? revoke.error;

  return (
    <section
      aria-labelledby={headingId}
      data-testid="report-share"
      className="space-y-3 rounded-xl border border-border bg-surface p-4 print:hidden"
    >
      <h3 id={headingId} className="text-sm font-semibold">
        {t("reportShareTitle")}
      </h3>
      <p className="text-sm text-muted">{t("reportShareLead")}</p>
      <Button variant="primary" size="md" disabled={create.isPending} onClick={() => create.mutate()}>
        {create.isPending ? t("reportShareCreating") : t("reportShareCreate")}
      </Button>
      {error && (
        <InlineAlert framed={false} size="xs" icon={false}>
          {t("reportShareFailed", { reason: errorWords(t, error) })}
        </InlineAlert>
      )}
      {created && (
        <div className="space-y-2 rounded-lg border border-warn/40 bg-warn-soft p-3">
          <p className="text-sm">{t("reportShareOnce")}</p>
          <div className="flex flex-wrap items-center gap-2">
            <input
              readOnly
              aria-label={t("reportShareLink")}
              value={url}
              onFocus={(e) => e.currentTarget.select()}
              className="h-8 min-w-0 flex-1 rounded-lg border border-border bg-surface px-2 font-mono text-xs"
            />
            <Button
              variant="secondary"
              size="md"
              onClick={() =>
                void navigator.clipboard.writeText(url).then(
                  () => setCopied(true),
                  () => setCopied(false),
                )
              }
            >
              {t("reportShareCopy")}
            </Button>
          </div>
        </div>
      )}
      <p role="status" className="min-h-4 text-xs text-muted">
        {copied ? t("reportCopied") : revoked ? t("reportShareRevoked") : ""}
      </p>
      <div>
        <h4 className="mb-1 text-xs font-semibold tracking-wide text-muted uppercase">{t("reportSharesTitle")}</h4>
        <ul aria-label={t("reportSharesTitle")} className="divide-y divide-border rounded-lg border border-border">
          {(shares.data?.shares ?? []).length === 0 && (
            <li className="px-3 py-2 text-sm text-muted">{t("reportShareNone")}</li>
          )}
          {shares.data?.shares.map((s) => (
            <li key={s.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2 text-sm">
              <span>{t("reportShareCreatedAt")}</span>
              <LocalTime iso={s.createdAt} mode="full" className="text-xs text-muted" />
              <Button
                variant="danger-outline"
                size="xs"
                className="ml-auto"
                disabled={revoke.isPending}
                onClick={() => revoke.mutate(s.id)}
              >
                {t("reportShareRevoke")}
              </Button>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
