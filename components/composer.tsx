"use client";

import { useId, useRef, useState, type FormEvent, type KeyboardEvent, type RefObject } from "react";
import type { DeliveryRequest } from "@/lib/client/api";
import type { DeliveryMode } from "@/lib/client/delivery";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useI18n } from "@/lib/client/i18n";
import { FIELD_CLASS } from "./composer-fields";
import { DeliveryOptions } from "./delivery-options";
import { SendIcon, TimerIcon } from "./icons";
import { useComposerText } from "./use-composer-text";
import { useDeliveryChoice, type DeliveryChoice } from "./use-delivery-choice";
import { WorkWithPicker } from "./work-with-picker";
import { Button } from "./ui/button";
import { cn } from "./ui/cn";

/** A label a phone has no room for (the control's icon and value say it); still the control's name. */
const PHONE_HIDDEN = "sr-only sm:not-sr-only";
/** Two selects and Send share a phone's row: a long choice is cut rather than pushing Send onto a row of its own. */
const PHONE_NARROW = { workWith: "max-w-[6.5rem] sm:max-w-none", delivery: "max-w-[8.5rem] sm:max-w-none" };

type OnSend = (content: string, delivery?: DeliveryRequest, workWith?: string) => void;

function DeliverySelect({ choice }: { choice: DeliveryChoice }) {
  const { t } = useI18n();
  const id = useId();
  return (
    <span className="flex items-center gap-1.5">
      <TimerIcon className="size-4" />
      <label htmlFor={id} className={PHONE_HIDDEN}>
        {t("delivery")}
      </label>
      <select
        id={id}
        value={choice.mode}
        onChange={(event) => choice.setMode(event.target.value as DeliveryMode)}
        className={cn(FIELD_CLASS, PHONE_NARROW.delivery)}
      >
        <option value="none">{t("deliveryNone")}</option>
        <option value="at">{t("deliveryAt")}</option>
        <option value="by">{t("deliveryBy")}</option>
      </select>
    </span>
  );
}

/**
 * At the end of the pickers' row, inside the composer's box: an icon on a
 * phone, icon and word from 640 px; named "Send" either way. Last in tab
 * order, after a deadline's fields, which show below the row (`order`).
 */
function SendButton({ disabled }: { disabled: boolean }) {
  const { t } = useI18n();
  return (
    <Button
      type="submit"
      variant="primary"
      size="none"
      disabled={disabled}
      className="order-1 ml-auto size-10 shrink-0 gap-2 self-end rounded-xl text-sm disabled:cursor-not-allowed disabled:opacity-45 sm:h-10 sm:w-auto sm:px-4"
    >
      <SendIcon className="size-4" />
      <span className={PHONE_HIDDEN}>{t("send")}</span>
    </Button>
  );
}

/** The text box: Enter sends, Shift+Enter breaks the line. */
function MessageBox({
  id,
  hintId,
  boxRef,
  value,
  onChange,
  disabled,
  readOnly,
  onEnter,
}: {
  id: string;
  hintId: string;
  boxRef: RefObject<HTMLTextAreaElement | null>;
  value: string;
  onChange: (value: string) => void;
  disabled: boolean;
  readOnly: boolean;
  onEnter: () => void;
}) {
  const { t } = useI18n();
  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key !== "Enter" || event.shiftKey) return;
    // Enter while an IME (Chinese pinyin, …) is composing picks a candidate; it must not send.
    if (event.nativeEvent.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    onEnter();
  }
  return (
    <textarea
      ref={boxRef}
      id={id}
      name="message"
      rows={1}
      value={value}
      disabled={disabled}
      readOnly={readOnly}
      onChange={(event) => onChange(event.target.value)}
      onKeyDown={onKeyDown}
      placeholder={t("composerPlaceholder")}
      aria-describedby={hintId}
      enterKeyHint="send"
      maxLength={16_000}
      className="block max-h-[200px] w-full resize-none bg-transparent px-4 pt-3 pb-1.5 text-base leading-6 text-fg placeholder:text-muted focus:outline-none disabled:cursor-not-allowed disabled:opacity-60 sm:text-[0.95rem]"
    />
  );
}

export function Composer({
  onSend,
  disabled = false,
  autoFocus = true,
  prefill,
}: {
  /** `workWith`: the "Work with" pick (an opaque id of GET /api/work-choices), absent for "best fit". */
  onSend: OnSend;
  disabled?: boolean;
  /** Focus the text box when the page opens (not on touch screens, where it would pop the keyboard up). */
  autoFocus?: boolean;
  /** Text to put in the box (an example prompt); a new `nonce` puts it again. */
  prefill?: { text: string; nonce: number };
}) {
  const { t } = useI18n();
  const id = useId();
  const hintId = useId();
  const hydrated = useHydrated();
  const { value, setValue, textareaRef } = useComposerText(autoFocus, prefill);
  const choice = useDeliveryChoice();
  const [workWith, setWorkWith] = useState("");
  const minutesRef = useRef<HTMLInputElement>(null);
  const canSend = !disabled && value.trim().length > 0;

  function submit() {
    if (!canSend) return;
    if (choice.minutesInvalid) {
      choice.setShowMinutesError(true);
      minutesRef.current?.focus();
      return;
    }
    onSend(value.trim(), choice.request(), workWith || undefined);
    setValue("");
    choice.reset();
    setWorkWith("");
    textareaRef.current?.focus();
  }

  return (
    <form
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        submit();
      }}
      noValidate
    >
      <label htmlFor={id} className="sr-only">
        {t("message")}
      </label>
      <div className="rounded-2xl border border-border-strong bg-surface shadow-sm focus-within:border-accent focus-within:ring-2 focus-within:ring-ring/40">
        <MessageBox
          id={id}
          hintId={hintId}
          boxRef={textareaRef}
          value={value}
          onChange={setValue}
          disabled={disabled}
          readOnly={!hydrated}
          onEnter={submit}
        />
        {/* The delivery picker (docs/state-machines.md#delivery-contracts): after the text in tab order, before Send. */}
        <fieldset
          disabled={disabled || !hydrated}
          data-testid="delivery-picker"
          className="flex flex-wrap items-center gap-x-3 gap-y-1.5 pr-2 pb-2 pl-3 text-xs text-muted"
        >
          <WorkWithPicker
            value={workWith}
            onChange={setWorkWith}
            className={cn(FIELD_CLASS, PHONE_NARROW.workWith)}
            labelClassName={PHONE_HIDDEN}
          />
          <DeliverySelect choice={choice} />
          <DeliveryOptions choice={choice} minutesRef={minutesRef} />
          <SendButton disabled={!canSend} />
        </fieldset>
      </div>
      <p id={hintId} className="sr-only">
        {t("composerHint")}
      </p>
    </form>
  );
}
