"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { useState } from "react";
import { useI18n } from "@/lib/client/i18n";
import { SpinnerIcon } from "./icons";
import { Button } from "./ui/button";

/**
 * "Cancel task", asked once more: a cancel cannot be undone, so the first click
 * opens a small dialog that says what stops and what is kept; only its confirm
 * button sends the cancel. Radix keeps focus inside and returns it to the button
 * on close; Escape or "Keep it running" closes without cancelling. The dialog
 * stacks over the tasks sheet (Escape closes only the top one).
 */
export function CancelTaskButton({
  title,
  cancelling,
  onConfirm,
}: {
  title: string;
  cancelling: boolean;
  onConfirm: () => void;
}) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  if (cancelling) {
    return (
      <Button variant="pending" size="md" aria-disabled className="gap-1.5">
        <SpinnerIcon className="size-3.5" />
        {t("cancelling")}
      </Button>
    );
  }
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger asChild>
        <Button variant="danger-outline" size="md" className="gap-1.5">
          {t("cancelTask")}
        </Button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-[60] bg-black/40" />
        <Dialog.Content
          role="alertdialog"
          data-testid="cancel-confirm"
          // Radix starts listening for Escape only once this layer has rendered as the top one, a render or two after
          // it shows; a key pressed in between reached neither this dialog nor the sheet. Focus is inside by then.
          onKeyDown={(e) => {
            if (e.key === "Escape") setOpen(false);
          }}
          className="fixed top-1/2 left-1/2 z-[70] w-[min(24rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 rounded-2xl border border-border bg-surface p-5 shadow-2xl focus:outline-none"
        >
          <Dialog.Title className="text-base font-semibold [overflow-wrap:anywhere]">
            {t("cancelConfirmTitle", { title })}
          </Dialog.Title>
          <Dialog.Description className="mt-2 text-sm text-muted">{t("cancelConfirmBody")}</Dialog.Description>
          <div className="mt-4 flex flex-wrap justify-end gap-2">
            <Dialog.Close asChild>
              <Button variant="secondary" size="lg">
                {t("cancelKeep")}
              </Button>
            </Dialog.Close>
            <Button
              variant="danger"
              size="lg"
              onClick={() => {
                setOpen(false);
                onConfirm();
              }}
            >
              {t("cancelConfirm")}
            </Button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
