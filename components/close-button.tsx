"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { useI18n } from "@/lib/i18n/client";
import { CloseIcon } from "./icons";

/** The close control of our side panels (tasks sheet, phone drawer). */
export function CloseButton({ className = "" }: { className?: string }) {
  const { t } = useI18n();
  return (
    <Dialog.Close asChild>
      <button
        type="button"
        className={`flex size-9 shrink-0 items-center justify-center rounded-lg text-muted hover:bg-subtle hover:text-fg ${className}`}
      >
        <CloseIcon />
        <span className="sr-only">{t("closePanel")}</span>
      </button>
    </Dialog.Close>
  );
}
