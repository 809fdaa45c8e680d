import type { ComponentProps } from "react";
import { cn } from "./cn";

// Colours and states. Tailwind classes are not merged: a variant, a size and a
// caller's className must never set the same property twice.
const SECONDARY = "border border-border text-fg hover:bg-subtle";

const VARIANTS = {
  primary: "bg-accent text-accent-fg hover:bg-accent-hover",
  secondary: SECONDARY,
  outline: SECONDARY,
  ghost: "text-fg hover:bg-subtle",
  /** A ghost that stays in the background until hovered (panel close buttons). */
  muted: "text-muted hover:bg-subtle hover:text-fg",
  danger: "bg-danger text-white dark:text-black",
  "danger-outline": "border border-danger/40 text-danger hover:bg-danger-soft",
  "warn-outline": "border border-warn/40 text-warn hover:bg-warn-soft",
  /** On a coloured surface (a toast): takes its colour from there. */
  overlay: "hover:bg-black/5 dark:hover:bg-white/10",
  /** An aria-disabled control whose action is under way ("Cancelling…"). */
  pending: "cursor-default border border-border text-muted",
} as const;

// Geometry: radius, height or padding, text size. Gaps between an icon and the
// label, and disabled looks, differ per control and come from className.
const SIZES = {
  /** Inside text-xs, e.g. an InlineAlert's actions (inherits the text size). */
  xs: "rounded-md px-2 py-0.5",
  /** Inside text-sm, e.g. an InlineAlert's actions. */
  sm: "rounded-md px-2.5 py-1 text-xs",
  /** Row controls (task rows, task details). */
  md: "h-8 rounded-lg px-2.5 text-xs",
  lg: "h-9 rounded-lg px-3 text-sm",
  xl: "h-10 rounded-lg px-3 text-sm",
  /** Header and panel icon buttons; the name is an sr-only span inside. */
  icon: "size-9 shrink-0 rounded-lg",
  "icon-sm": "size-7 shrink-0 rounded-md",
  /** The caller sets the geometry (the composer's Send, the responsive Sign out). */
  none: "",
} as const;

export type ButtonVariant = keyof typeof VARIANTS;
export type ButtonSize = keyof typeof SIZES;

export interface ButtonStyle {
  variant?: ButtonVariant;
  size?: ButtonSize;
  /** Full width of its container. */
  block?: boolean;
  className?: string;
}

/** The classes of a Button, for links and other elements that look like one. */
export function buttonClass({
  variant = "secondary",
  size = "md",
  block = false,
  className,
}: ButtonStyle = {}): string {
  return cn(
    block ? "flex w-full" : "inline-flex",
    "items-center justify-center font-medium",
    VARIANTS[variant],
    SIZES[size],
    className,
  );
}

export type ButtonProps = ComponentProps<"button"> & ButtonStyle;

/** A `<button type="button">` unless told otherwise; every other prop (ref, aria-*, data-*) passes through. */
export function Button({ variant, size, block, className, type = "button", ...props }: ButtonProps) {
  return <button type={type} className={buttonClass({ variant, size, block, className })} {...props} />;
}
