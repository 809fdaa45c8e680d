"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useTransition } from "react";
import type { PublicMessage } from "@/lib/contract/shapes";
import { createConversation } from "@/lib/client/api";
import { queryKeys, upsertConversation } from "@/lib/client/cache";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useI18n } from "@/lib/client/i18n";
import { PlusIcon } from "./icons";
import { Button } from "./ui/button";
import { cn } from "./ui/cn";
import { InlineAlert } from "./ui/inline-alert";

/** `full` lives in the sidebar; `icon` in the phone header, where the sidebar is tucked away. */
export function NewChatButton({
  variant,
  onCreated,
  className,
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
    // A draft: the account's empty chat is reused, and the sidebar lists it only once something is written.
    mutationFn: () => createConversation(undefined, { draft: true }),
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

  // On phones the button sits in the header: the message floats below it.
  const error =
    create.isError &&
    (variant === "icon" ? (
      <InlineAlert icon={false} className="fixed top-16 right-3 left-3 z-40 shadow-lg">
        {t("createFailed")}
      </InlineAlert>
    ) : (
      <InlineAlert framed={false} size="xs" icon={false} className="mt-2">
        {t("createFailed")}
      </InlineAlert>
    ));

  if (variant === "icon") {
    return (
      <>
        <Button
          variant="ghost"
          size="icon"
          onClick={() => create.mutate()}
          disabled={busy || !hydrated}
          aria-busy={busy || undefined}
          className={cn("disabled:opacity-60", className)}
        >
          <PlusIcon />
          <span className="sr-only">{t("newChat")}</span>
        </Button>
        {error}
      </>
    );
  }

  return (
    <div className={className}>
      <Button
        variant="primary"
        size="xl"
        block
        onClick={() => create.mutate()}
        disabled={busy || !hydrated}
        aria-busy={busy || undefined}
        className="gap-2 shadow-sm disabled:opacity-70"
      >
        <PlusIcon className="size-4.5" />
        {t("newChat")}
      </Button>
      {error}
    </div>
  );
}
