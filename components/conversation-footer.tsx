"use client";

import Link from "next/link";
import type { DeliveryRequest } from "@/lib/client/api";
import { useI18n } from "@/lib/client/i18n";
import { Composer } from "./composer";

function Thinking() {
  const { t } = useI18n();
  return (
    <p role="status" className="flex items-center gap-2 text-xs text-muted">
      <span className="flex gap-1" aria-hidden="true">
        <span className="size-1.5 animate-bounce rounded-full bg-accent [animation-delay:-0.3s] motion-reduce:animate-none" />
        <span className="size-1.5 animate-bounce rounded-full bg-accent [animation-delay:-0.15s] motion-reduce:animate-none" />
        <span className="size-1.5 animate-bounce rounded-full bg-accent motion-reduce:animate-none" />
      </span>
      {t("thinking")}
    </p>
  );
}

/** Under the conversation: "Thinking…" or why nothing can be sent, then the composer. */
export function ConversationFooter({
  thinking,
  gone,
  onSend,
}: {
  thinking: boolean;
  gone: boolean;
  onSend: (content: string, delivery?: DeliveryRequest, workWith?: string) => void;
}) {
  const { t } = useI18n();
  return (
    <div className="shrink-0 border-t border-border bg-bg/90 backdrop-blur">
      <div className="mx-auto w-full max-w-3xl px-3 pt-2 pb-[max(0.75rem,env(safe-area-inset-bottom))] sm:px-6">
        <div className="min-h-6 pb-1">
          {thinking && <Thinking />}
          {gone && (
            <p className="text-xs text-danger">
              {t("conversationGone")}{" "}
              <Link href="/" className="font-medium underline underline-offset-4">
                {t("backHome")}
              </Link>
            </p>
          )}
        </div>
        <Composer onSend={onSend} disabled={gone} />
      </div>
    </div>
  );
}
