"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import type { PublicMessage } from "@/lib/contract/shapes";
import { createConversation, type DeliveryRequest } from "@/lib/client/api";
import { queryKeys, upsertConversation } from "@/lib/client/cache";
import { errorWords } from "@/lib/client/error-words";
import { sendOutgoing } from "@/lib/client/outbox";
import { useI18n } from "@/lib/client/i18n";
import type { MessageKey } from "@/lib/i18n/dictionaries";
import { Composer } from "./composer";
import { HeraldMark } from "./icons";
import { InlineAlert } from "./ui/inline-alert";

const EXAMPLES: readonly MessageKey[] = ["example1", "example2", "example3", "example4"];

/**
 * The home page: a composer with a few example prompts. Nothing is saved until
 * the first message is sent; then the chat is made (New chat's draft, if one
 * is waiting), the message goes out and the page moves to the chat.
 */
export function HomeEmpty() {
  const { t } = useI18n();
  const qc = useQueryClient();
  const router = useRouter();
  const [prefill, setPrefill] = useState<{ text: string; nonce: number } | undefined>();
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [, startNavigation] = useTransition();

  async function start(content: string, delivery?: DeliveryRequest, workWith?: string) {
    setStarting(true);
    setError(null);
    try {
      const conversation = await createConversation(undefined, { draft: true });
      upsertConversation(qc, conversation);
      qc.setQueryData(queryKeys.conversation(conversation.id), conversation);
      qc.setQueryData<PublicMessage[]>(queryKeys.messages(conversation.id), (prev) => prev ?? []);
      sendOutgoing(qc, conversation.id, content, delivery, workWith);
      startNavigation(() => router.push(`/c/${conversation.id}`));
    } catch (cause) {
      setError(t("startFailed", { reason: errorWords(t, cause) }));
      setPrefill({ text: content, nonce: Date.now() });
      setStarting(false);
    }
  }

  return (
    <div className="flex flex-1 flex-col items-center justify-center gap-6 overflow-y-auto px-4 py-10 sm:px-6">
      <div className="flex flex-col items-center gap-3 text-center">
        <HeraldMark className="size-12" />
        <h1 className="text-xl font-semibold tracking-tight sm:text-2xl">{t("homeTitle")}</h1>
        <p className="max-w-md text-sm text-muted">{t("homeComposerLead")}</p>
      </div>
      <div className="w-full max-w-2xl space-y-3">
        <Composer
          onSend={(content, delivery, workWith) => void start(content, delivery, workWith)}
          disabled={starting}
          prefill={prefill}
        />
        {error && <InlineAlert>{error}</InlineAlert>}
        <section aria-label={t("examplePrompts")}>
          <h2 className="sr-only">{t("examplePrompts")}</h2>
          <ul className="grid gap-2 sm:grid-cols-2">
            {EXAMPLES.map((key) => (
              <li key={key}>
                <button
                  type="button"
                  onClick={() => setPrefill({ text: t(key), nonce: Date.now() })}
                  className="h-full w-full rounded-xl border border-border bg-surface px-3 py-2.5 text-left text-sm text-fg hover:border-border-strong hover:bg-subtle"
                >
                  {t(key)}
                </button>
              </li>
            ))}
          </ul>
        </section>
      </div>
    </div>
  );
}
