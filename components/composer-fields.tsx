"use client";

import { useId } from "react";

// 16px on phones: smaller form text makes iOS zoom in on focus.
export const FIELD_CLASS =
  "h-8 rounded-lg border border-border bg-surface px-2 text-base text-fg hover:border-border-strong disabled:opacity-60 sm:text-sm";

export function RadioField({
  name,
  label,
  checked,
  onChange,
}: {
  name: string;
  label: string;
  checked: boolean;
  onChange: () => void;
}) {
  const id = useId();
  return (
    <span className="flex items-center gap-1">
      <input
        id={id}
        type="radio"
        name={name}
        checked={checked}
        onChange={onChange}
        className="size-3.5 accent-accent"
      />
      <label htmlFor={id}>{label}</label>
    </span>
  );
}

export function CheckboxField({
  label,
  checked,
  onChange,
}: {
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  const id = useId();
  return (
    <span className="flex items-center gap-1.5">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        onChange={(event) => onChange(event.target.checked)}
        className="size-4 accent-accent"
      />
      <label htmlFor={id}>{label}</label>
    </span>
  );
}
