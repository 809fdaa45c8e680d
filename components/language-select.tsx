"use client";

import { useId } from "react";
import { LANGS, LANG_NAMES, isLang } from "@/lib/i18n/dictionaries";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useI18n } from "@/lib/client/i18n";
import { GlobeIcon } from "./icons";
import { cn } from "./ui/cn";

/** `compact` shrinks to the globe icon on phones; the native picker still lists the languages. `labelled` shows the label (settings). */
export function LanguageSelect({ compact = false, labelled = false }: { compact?: boolean; labelled?: boolean }) {
  const { lang, setLang, t } = useI18n();
  const id = useId();
  const hydrated = useHydrated();
  return (
    <div className={cn("relative flex items-center", labelled && "gap-3")}>
      <label htmlFor={id} className={labelled ? "w-28 shrink-0 text-sm font-medium" : "sr-only"}>
        {t("language")}
      </label>
      <span className="relative flex items-center">
        <GlobeIcon className="pointer-events-none absolute left-2 size-4 text-muted" />
        <select
          id={id}
          value={lang}
          disabled={!hydrated}
          onChange={(event) => {
            if (isLang(event.target.value)) setLang(event.target.value);
          }}
          className={cn(
            "h-9 appearance-none rounded-lg border border-border bg-surface pr-2 pl-7 text-sm text-fg hover:border-border-strong",
            compact ? "w-9 text-transparent sm:w-auto sm:pr-3 sm:text-fg" : "pr-3",
          )}
        >
          {LANGS.map((value) => (
            <option key={value} value={value} lang={value === "zh" ? "zh-CN" : "en"} className="text-fg bg-surface">
              {LANG_NAMES[value]}
            </option>
          ))}
        </select>
      </span>
    </div>
  );
}
