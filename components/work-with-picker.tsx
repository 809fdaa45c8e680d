"use client";

import { useId } from "react";
import { useQuery } from "@tanstack/react-query";
import { getWorkChoices } from "@/lib/client/api";
import { useI18n } from "@/lib/client/i18n";

/** The choices change only when the operator reconfigures the server: one fetch per page load is enough. */
const CHOICES_KEY = ["work-choices"] as const;

/**
 * The composer's "Work with" picker (docs/contract.md): Herald's own research
 * or one of the remote agents / MCP servers the operator gave a public label.
 * Its value is an opaque id; "" means no pick (the chat model routes by the
 * request, as without a picker).
 */
export function WorkWithPicker({
  value,
  onChange,
  className,
  labelClassName,
}: {
  value: string;
  onChange: (id: string) => void;
  className?: string;
  labelClassName?: string;
}) {
  const { t } = useI18n();
  const id = useId();
  const { data } = useQuery({
    queryKey: CHOICES_KEY,
    queryFn: ({ signal }) => getWorkChoices(signal),
    staleTime: Infinity,
    retry: 1,
  });
  const choices = data?.choices ?? [];
  return (
    <span className="flex items-center gap-1.5" data-testid="work-with-picker">
      <label htmlFor={id} className={labelClassName}>
        {t("workWith")}
      </label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value)} className={className}>
        <option value="">{t("workWithAuto")}</option>
        {choices.map((c) => (
          <option key={c.id} value={c.id}>
            {c.label ?? t("workWithNative")}
          </option>
        ))}
      </select>
    </span>
  );
}
