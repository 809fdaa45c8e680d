"use client";

import { useFeedConnection } from "@/lib/client/feed-connection";
import { useI18n } from "@/lib/client/i18n";
import { CheckCircleIcon, SpinnerIcon } from "./icons";
import { cn } from "./ui/cn";

/**
 * "Reconnecting…" while the event feed is down (server gone, network lost, a
 * laptop sleep), then "Connected again" for a moment once it is back and the
 * page has refetched. The status region is always mounted so screen readers
 * hear both changes. A drop shorter than GRACE_MS (lib/client/feed-connection.ts) never shows. It floats just
 * under the 3.5 rem header (app-shell.tsx), never over the chat's title.
 */
export function ConnectionBanner() {
  const { t } = useI18n();
  const state = useFeedConnection();
  const visible = state === "reconnecting" || state === "restored";
  const down = state === "reconnecting";
  return (
    <div
      role="status"
      aria-live="polite"
      className="pointer-events-none fixed inset-x-0 top-16 z-[80] flex justify-center px-3"
    >
      {visible && (
        <p
          data-testid="connection-banner"
          data-state={state}
          className={cn(
            "pointer-events-auto flex max-w-xl items-start gap-2 rounded-xl border px-3 py-2 text-sm shadow-lg",
            down ? "border-warn/40 bg-warn-soft text-warn" : "border-ok/40 bg-ok-soft text-ok",
          )}
        >
          {down ? (
            <SpinnerIcon className="mt-0.5 size-4 shrink-0" />
          ) : (
            <CheckCircleIcon className="mt-0.5 size-4 shrink-0" />
          )}
          <span>
            <span className="font-semibold">{down ? t("connectionLost") : t("connectionBack")}</span>{" "}
            {down ? t("connectionLostHint") : t("connectionBackHint")}
          </span>
        </p>
      )}
    </div>
  );
}
