"use client";

import { forwardRef, useId, useState } from "react";
import { useI18n } from "@/lib/client/i18n";
import { cn } from "./ui/cn";

export const passwordInputClass =
  "block w-full rounded-lg border border-border-strong bg-surface px-3 py-2.5 text-base text-fg placeholder:text-muted " +
  "focus:border-accent focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-ring " +
  "aria-invalid:border-danger sm:text-sm";

/**
 * A labelled password input with a "Show password" toggle (aria-pressed). The
 * toggle keeps one name in both states so tests and screen readers find it the
 * same way; the pressed state says which one it is in.
 */
export const PasswordField = forwardRef<
  HTMLInputElement,
  {
    label: string;
    name: string;
    autoComplete: "current-password" | "new-password";
    invalid?: boolean;
    describedBy?: string;
    readOnly?: boolean;
    hint?: string;
  }
>(function PasswordField({ label, name, autoComplete, invalid, describedBy, readOnly, hint }, ref) {
  const { t } = useI18n();
  const id = useId();
  const hintId = useId();
  const [shown, setShown] = useState(false);
  return (
    <div className="space-y-1.5">
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      <div className="relative">
        <input
          ref={ref}
          id={id}
          name={name}
          type={shown ? "text" : "password"}
          autoComplete={autoComplete}
          autoCapitalize="none"
          spellCheck={false}
          required
          readOnly={readOnly}
          aria-invalid={invalid || undefined}
          aria-describedby={[describedBy, hint ? hintId : null].filter(Boolean).join(" ") || undefined}
          className={cn(passwordInputClass, "pr-11")}
        />
        <button
          type="button"
          aria-pressed={shown}
          aria-controls={id}
          onClick={() => setShown((s) => !s)}
          title={t("showPassword")}
          className="absolute inset-y-0 right-0 flex w-10 items-center justify-center rounded-r-lg text-muted hover:text-fg focus-visible:outline-2 focus-visible:outline-ring aria-pressed:text-accent-text"
        >
          <EyeIcon className="size-4.5" crossed={!shown} />
          <span className="sr-only">{t("showPassword")}</span>
        </button>
      </div>
      {hint && (
        <p id={hintId} className="text-xs text-muted">
          {hint}
        </p>
      )}
    </div>
  );
});

function EyeIcon({ crossed, className }: { crossed: boolean; className?: string }) {
  return (
    <svg
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.8}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      className={className}
    >
      <path d="M2 12s3.5-7 10-7 10 7 10 7-3.5 7-10 7S2 12 2 12Z" />
      <circle cx="12" cy="12" r="3" />
      {crossed && <path d="M4 4l16 16" />}
    </svg>
  );
}
