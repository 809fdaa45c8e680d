"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { dismissToast, registerToastHost, useToasts, useTopToastHost } from "@/lib/client/toasts";
import { useI18n } from "@/lib/client/i18n";
import { AlertIcon, CloseIcon } from "./icons";
import { Button } from "./ui/button";
import { cn } from "./ui/cn";

/**
 * Renders the toasts when it is the topmost host: the shell has one, and the
 * tasks sheet mounts its own (a modal hides everything outside it).
 */
export function Toaster() {
  const { t } = useI18n();
  const toasts = useToasts();
  const [host] = useState(() => Symbol("toast-host"));
  const top = useTopToastHost();
  useEffect(() => registerToastHost(host), [host]);

  if (top !== host || toasts.length === 0) return null;
  return (
    <div className="pointer-events-none fixed inset-x-3 top-16 z-[60] flex flex-col items-center gap-2 sm:inset-x-auto sm:right-4 sm:items-end">
      {toasts.map((toast) => {
        const text = t(toast.key, {
          ...toast.vars,
          ...(toast.reasonKey ? { reason: t(toast.reasonKey, toast.vars) } : {}),
        });
        return (
          <div
            key={toast.id}
            role={toast.tone === "error" ? "alert" : "status"}
            data-testid="toast"
            className={cn(
              "pointer-events-auto flex w-full max-w-sm items-start gap-2 rounded-xl border px-3 py-2.5 text-sm shadow-lg",
              toast.tone === "error"
                ? "border-danger/30 bg-danger-soft text-danger"
                : "border-border bg-surface text-fg",
            )}
          >
            {toast.tone === "error" && <AlertIcon className="mt-0.5 size-4 shrink-0" />}
            <p className="min-w-0 flex-1 [overflow-wrap:anywhere]">
              {text}
              {toast.link && (
                <>
                  {" "}
                  <Link
                    href={toast.link.href}
                    onClick={() => dismissToast(toast.id)}
                    className="font-medium underline underline-offset-4"
                  >
                    {t(toast.link.key)}
                  </Link>
                </>
              )}
            </p>
            <Button variant="overlay" size="icon-sm" onClick={() => dismissToast(toast.id)} className="-m-1">
              <CloseIcon className="size-4" />
              <span className="sr-only">{t("dismiss")}</span>
            </Button>
          </div>
        );
      })}
    </div>
  );
}
