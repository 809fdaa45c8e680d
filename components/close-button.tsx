"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { useI18n } from "@/lib/client/i18n";
import { CloseIcon } from "./icons";
import { Button } from "./ui/button";

/** The close control of our side panels (tasks sheet, phone drawer). */
export function CloseButton({ className }: { className?: string }) {
  const { t } = useI18n();
  return (
    <Dialog.Close asChild>
      <Button variant="muted" size="icon" className={className}>
        <CloseIcon />
        <span className="sr-only">{t("closePanel")}</span>
      </Button>
    </Dialog.Close>
  );
}
