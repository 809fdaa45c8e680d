"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useTransition } from "react";
import type { PublicMessage } from "@/lib/api/shapes";
import { createConversation } from "@/lib/client/api";
import { queryKeys, upsertConversation } from "@/lib/client/cache";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useI18n } from "@/lib/i18n/client";
import { PlusIcon } from "./icons";

/** `full` lives in the sidebar; `icon` in the phone header, where the sidebar is tucked away. */
export function NewChatButton({
  variant,
  onCreated,
  className = "",
}: {
  variant: "full" | "icon";
  onCreated?: () => void;
  className?: string;
}) {
  const { t } = useI18n();
  const qc = useQueryClient();
  const router = useRouter();
  const [navigating, startNavigation] = useTransition();
  const create = useMutation({
    mutationFn: () => createConversation(),
    onSuccess: (conversation) => {
      upsertConversation(qc, conversation);
      qc.setQueryData(queryKeys.conversation(conversation.id), conversation);
      // Brand new: nothing to fetch, and no loading flash.
      qc.setQueryData<PublicMessage[]>(queryKeys.messages(conversation.id), (prev) => prev ?? []);
      onCreated?.();
      startNavigation(() => router.push(`/c/${conversation.id}`));
    },
  });
  const busy = create.isPending || navigating;
  const hydrated = useHydrated();

  const error = create.isError && (
    <p
      role="alert"
      className={
        variant === "icon"
          ? "fixed top-16 right-3 left-3 z-40 rounded-lg border border-danger/30 bg-danger-soft px-3 py-2 text-sm text-danger shadow-lg"
          : "mt-2 text-xs text-danger"
      }
    >
      {t("createFailed")}
    </p>
  );

  if (variant === "icon") {
    return (
      <>
        <button
          type="button"
          onClick={() => create.mutate()}
          disabled={busy || !hydrated}
          aria-busy={busy || undefined}
          className={`flex size-9 shrink-0 items-center justify-center rounded-lg text-fg hover:bg-subtle disabled:opacity-60 ${className}`}
        >
          <PlusIcon />
          <span className="sr-only">{t("newChat")}</span>
        </button>
        {error}
      </>
    );
  }

  return (
    <div className={className}>
      <button
        type="button"
        onClick={() => create.mutate()}
        disabled={busy || !hydrated}
        aria-busy={busy || undefined}
        className="flex h-10 w-full items-center justify-center gap-2 rounded-lg bg-accent px-3 text-sm font-medium text-accent-fg shadow-sm hover:bg-accent-hover disabled:opacity-70"
      >
        <PlusIcon className="size-4.5" />
        {t("newChat")}
      </button>
      {error}
    </div>
  );
}
