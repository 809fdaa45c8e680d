import type { ReactNode } from "react";
import { AlertIcon } from "../icons";
import { cn } from "./cn";

export type AlertTone = "error" | "warn" | "info";

const TONES: Record<AlertTone, { text: string; box: string }> = {
  error: { text: "text-danger", box: "border-danger/30 bg-danger-soft" },
  warn: { text: "text-warn", box: "border-warn/30 bg-warn-soft" },
  info: { text: "text-info", box: "border-info/25 bg-info-soft" },
};

export interface InlineAlertProps {
  tone?: AlertTone;
  /** Text size of the message: `sm` pairs with Button size "sm" actions, `xs` with "xs". */
  size?: "sm" | "xs";
  /** A tinted box (default), or coloured text only where a box would be too heavy. */
  framed?: boolean;
  /** The message above its actions instead of beside them (a framed one becomes a card). */
  stacked?: boolean;
  icon?: boolean;
  /** Buttons ("Try again", "Discard", …), after the message. */
  actions?: ReactNode;
  id?: string;
  /** Placement only (margins, width, position): the look comes from the props above. */
  className?: string;
  children: ReactNode;
}

/** A failure (or warning) where it happened, announced once as it appears (role="alert"). */
export function InlineAlert({
  tone = "error",
  size = "sm",
  framed = true,
  stacked = false,
  icon = true,
  actions,
  id,
  className,
  children,
}: InlineAlertProps) {
  const look = TONES[tone];
  const mark = icon && <AlertIcon className={cn(framed ? "size-4" : "size-3.5", "shrink-0")} />;
  return (
    <div
      id={id}
      role="alert"
      className={cn(
        "flex",
        stacked
          ? cn("flex-col items-start", framed ? "gap-3" : "gap-2")
          : cn("flex-wrap items-center", size === "sm" ? "gap-x-3 gap-y-2" : "gap-2"),
        framed && cn("border", look.box, stacked ? "rounded-xl p-4" : "rounded-lg px-3 py-2"),
        size === "sm" ? "text-sm" : "text-xs",
        look.text,
        className,
      )}
    >
      {stacked ? (
        <p className="flex items-center gap-2">
          {mark}
          {children}
        </p>
      ) : (
        <>
          {mark}
          <span className={cn("min-w-0", framed && "flex-1")}>{children}</span>
        </>
      )}
      {actions && <div className="flex shrink-0 gap-2">{actions}</div>}
    </div>
  );
}
