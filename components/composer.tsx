"use client";

import { useId, useLayoutEffect, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useI18n } from "@/lib/i18n/client";
import { SendIcon } from "./icons";

const MAX_HEIGHT_PX = 200;

export function Composer({ onSend, disabled = false }: { onSend: (content: string) => void; disabled?: boolean }) {
  const { t } = useI18n();
  const id = useId();
  const hintId = useId();
  const [value, setValue] = useState("");
  const hydrated = useHydrated();
  const textareaRef = useRef<HTMLTextAreaElement>(null);
  const canSend = !disabled && value.trim().length > 0;

  // Grow with the text up to a cap, then scroll inside.
  useLayoutEffect(() => {
    const el = textareaRef.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight, MAX_HEIGHT_PX)}px`;
  }, [value]);

  function submit() {
    if (!canSend) return;
    onSend(value.trim());
    setValue("");
    textareaRef.current?.focus();
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    submit();
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key !== "Enter" || event.shiftKey) return;
    // Enter while an IME (Chinese pinyin, …) is composing picks a candidate; it must not send.
    if (event.nativeEvent.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    submit();
  }

  return (
    <form onSubmit={onSubmit} className="flex items-end gap-2">
      <label htmlFor={id} className="sr-only">
        {t("message")}
      </label>
      <div className="min-w-0 flex-1 rounded-2xl border border-border-strong bg-surface shadow-sm focus-within:border-accent focus-within:ring-2 focus-within:ring-ring/40">
        <textarea
          ref={textareaRef}
          id={id}
          name="message"
          rows={1}
          value={value}
          disabled={disabled}
          readOnly={!hydrated}
          onChange={(event) => setValue(event.target.value)}
          onKeyDown={onKeyDown}
          placeholder={t("composerPlaceholder")}
          aria-describedby={hintId}
          enterKeyHint="send"
          maxLength={16_000}
          className="block max-h-[200px] w-full resize-none bg-transparent px-4 py-3 text-base leading-6 text-fg placeholder:text-muted focus:outline-none disabled:cursor-not-allowed disabled:opacity-60 sm:text-[0.95rem]"
        />
      </div>
      <button
        type="submit"
        disabled={!canSend}
        className="flex h-12 shrink-0 items-center gap-2 rounded-2xl bg-accent px-4 text-sm font-medium text-accent-fg hover:bg-accent-hover disabled:cursor-not-allowed disabled:opacity-45"
      >
        <SendIcon className="size-4" />
        <span>{t("send")}</span>
      </button>
      <p id={hintId} className="sr-only">
        {t("composerHint")}
      </p>
    </form>
  );
}
