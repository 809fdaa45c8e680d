"use client";

import { useEffect, useId, useLayoutEffect, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import type { DeliveryRequest } from "@/lib/client/api";
import { MAX_DUE_MINUTES, minutesText, parseDueMinutes, secondsUntilTimeOfDay, timeOfDayIn, type DeliveryMode } from "@/lib/client/delivery";
import { draftKey, readDraft, writeDraft } from "@/lib/client/draft";
import { pushToast } from "@/lib/client/toasts";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useI18n } from "@/lib/client/i18n";
import { useTimeZone } from "@/lib/client/time-zone";
import { DeliveryExplainer, TimeOfDayField } from "./delivery-picker";
import { SendIcon, TimerIcon } from "./icons";
import { WorkWithPicker } from "./work-with-picker";
import { Button } from "./ui/button";
import { cn } from "./ui/cn";

const MAX_HEIGHT_PX = 200;
const DEFAULT_MINUTES = "10";

export function Composer({
  onSend,
  disabled = false,
  autoFocus = true,
  prefill,
}: {
  /** `workWith`: the "Work with" pick (an opaque id of GET /api/work-choices), absent for "best fit". */
  onSend: (content: string, delivery?: DeliveryRequest, workWith?: string) => void;
  disabled?: boolean;
  /** Focus the text box when the page opens (not on touch screens, where it would pop the keyboard up). */
  autoFocus?: boolean;
  /** Text to put in the box (an example prompt); a new `nonce` puts it again. */
  prefill?: { text: string; nonce: number };
}) {
  const { t } = useI18n();
  const id = useId();
  const hintId = useId();
  const modeId = useId();
  const minutesId = useId();
  const minutesErrorId = useId();
  const [value, setValue] = useState("");
  const [mode, setMode] = useState<DeliveryMode>("none");
  const [minutes, setMinutes] = useState(DEFAULT_MINUTES);
  /**
   * One due time, given one way: a number of minutes or a time of day on the
   * account's clock. Only the chosen field shows; the other follows it.
   */
  const [dueKind, setDueKind] = useState<"in" | "at">("in");
  const [timeOfDay, setTimeOfDay] = useState("");
  const timeZone = useTimeZone();
  const [reportAnyway, setReportAnyway] = useState(false);
  const [stopAtDeadline, setStopAtDeadline] = useState(false);
  const [workWith, setWorkWith] = useState("");
  const [showMinutesError, setShowMinutesError] = useState(false);
  const hydrated = useHydrated();
  const textareaRef = useRef<HTMLTextAreaElement>(null);
  const minutesRef = useRef<HTMLInputElement>(null);
  const canSend = !disabled && value.trim().length > 0;
  const dueInSeconds = parseDueMinutes(minutes);
  const dueKindName = useId();
  const minutesInvalid = mode !== "none" && dueInSeconds === null;

  // The unsent text survives a reload or an ended session, for the same account (lib/client/draft.ts).
  const draftRef = useRef<string | null>(null);
  useEffect(() => {
    const key = draftKey(window.location.pathname);
    draftRef.current = key;
    // Only the account that typed it gets it back (lib/client/draft.ts); text typed meanwhile wins.
    void readDraft(key).then((saved) => {
      if (!saved || draftRef.current !== key || textareaRef.current?.value) return;
      setValue(saved);
      pushToast({ tone: "info", key: "draftRestored" });
    });
  }, []);
  useEffect(() => {
    if (draftRef.current) writeDraft(draftRef.current, value);
  }, [value]);

  useEffect(() => {
    if (autoFocus && window.matchMedia("(pointer: fine)").matches) textareaRef.current?.focus({ preventScroll: true });
  }, [autoFocus]);
  useEffect(() => {
    if (!prefill) return;
    // eslint-disable-next-line react-hooks/set-state-in-effect -- an outside control (an example prompt) sets the text
    setValue(prefill.text);
    textareaRef.current?.focus();
  }, [prefill]);

  // Grow with the text up to a cap, then scroll inside.
  useLayoutEffect(() => {
    const el = textareaRef.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight, MAX_HEIGHT_PX)}px`;
  }, [value]);

  function submit() {
    if (!canSend) return;
    if (minutesInvalid) {
      setShowMinutesError(true);
      minutesRef.current?.focus();
      return;
    }
    // A time of day is counted from the moment of sending, not of typing.
    const due = dueKind === "at" && timeOfDay ? (secondsUntilTimeOfDay(timeOfDay, new Date(), timeZone) ?? dueInSeconds) : dueInSeconds;
    const delivery =
      mode !== "none" && due !== null
        ? { mode, dueInSeconds: due, reportIfUnfinished: reportAnyway, ...(stopAtDeadline ? { allowOvertime: false } : {}) }
        : undefined;
    onSend(value.trim(), delivery, workWith || undefined);
    setValue("");
    // A deadline belongs to one message; the next one starts without.
    setMode("none");
    setMinutes(DEFAULT_MINUTES);
    setDueKind("in");
    setTimeOfDay("");
    setReportAnyway(false);
    setStopAtDeadline(false);
    setWorkWith("");
    setShowMinutesError(false);
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

  // 16px on phones: smaller form text makes iOS zoom in on focus.
  const fieldClass =
    "h-8 rounded-lg border border-border bg-surface px-2 text-base text-fg hover:border-border-strong disabled:opacity-60 sm:text-sm";

  return (
    <form onSubmit={onSubmit} noValidate className="flex items-end gap-2">
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
          className="block max-h-[200px] w-full resize-none bg-transparent px-4 pt-3 pb-1.5 text-base leading-6 text-fg placeholder:text-muted focus:outline-none disabled:cursor-not-allowed disabled:opacity-60 sm:text-[0.95rem]"
        />
        {/* The delivery picker (docs/state-machines.md#delivery-contracts): after the text in tab order, before Send. */}
        <fieldset
          disabled={disabled || !hydrated}
          data-testid="delivery-picker"
          className="flex flex-wrap items-center gap-x-3 gap-y-1.5 px-3 pb-2 text-xs text-muted"
        >
          <WorkWithPicker value={workWith} onChange={setWorkWith} className={fieldClass} />
          <span className="flex items-center gap-1.5">
            <TimerIcon className="size-4" />
            <label htmlFor={modeId}>{t("delivery")}</label>
            <select
              id={modeId}
              value={mode}
              onChange={(event) => setMode(event.target.value as DeliveryMode)}
              className={fieldClass}
            >
              <option value="none">{t("deliveryNone")}</option>
              <option value="at">{t("deliveryAt")}</option>
              <option value="by">{t("deliveryBy")}</option>
            </select>
          </span>
          {mode !== "none" && (
            <>
              <span role="radiogroup" aria-label={t("dueKind")} className="flex items-center gap-2.5" data-testid="due-kind">
                <RadioField name={dueKindName} label={t("dueKindIn")} checked={dueKind === "in"} onChange={() => {
                  setDueKind("in");
                  setTimeOfDay("");
                }} />
                <RadioField name={dueKindName} label={t("dueKindAt")} checked={dueKind === "at"} onChange={() => {
                  setDueKind("at");
                  // Starts at the moment the minutes already describe, on the account's clock.
                  if (!timeOfDay) setTimeOfDay(timeOfDayIn(dueInSeconds ?? Number(DEFAULT_MINUTES) * 60, new Date(), timeZone));
                }} />
              </span>
              <span className={cn(dueKind === "in" ? "flex" : "hidden", "items-center gap-1.5")}>
                <label htmlFor={minutesId}>{t("dueInMinutes")}</label>
                <input
                  ref={minutesRef}
                  id={minutesId}
                  type="number"
                  inputMode="decimal"
                  step="any"
                  min="0"
                  max={MAX_DUE_MINUTES}
                  value={minutes}
                  onChange={(event) => {
                    setMinutes(event.target.value);
                    setTimeOfDay("");
                  }}
                  onBlur={() => setShowMinutesError(true)}
                  aria-invalid={(showMinutesError && minutesInvalid) || undefined}
                  aria-describedby={showMinutesError && minutesInvalid ? minutesErrorId : undefined}
                  className={cn(fieldClass, "w-20", showMinutesError && minutesInvalid && "border-danger")}
                />
              </span>
              {dueKind === "at" && (
                <TimeOfDayField
                  value={timeOfDay}
                  className={fieldClass}
                  onChange={(text) => {
                    setTimeOfDay(text);
                    const seconds = secondsUntilTimeOfDay(text, new Date(), timeZone);
                    if (seconds !== null) setMinutes(minutesText(seconds));
                  }}
                />
              )}
              <CheckboxField label={t("reportIfUnfinished")} checked={reportAnyway} onChange={setReportAnyway} />
              <CheckboxField label={t("stopAtDeadline")} checked={stopAtDeadline} onChange={setStopAtDeadline} />
              {showMinutesError && minutesInvalid && (
                <p id={minutesErrorId} className="basis-full text-danger">
                  {t("dueInvalid")}
                </p>
              )}
              <DeliveryExplainer
                mode={mode}
                dueInSeconds={dueInSeconds}
                timeOfDay={dueKind === "at" ? timeOfDay : ""}
                reportAnyway={reportAnyway}
                stopAtDeadline={stopAtDeadline}
              />
            </>
          )}
        </fieldset>
      </div>
      <Button
        type="submit"
        variant="primary"
        size="none"
        disabled={!canSend}
        className="h-12 shrink-0 gap-2 rounded-2xl px-4 text-sm disabled:cursor-not-allowed disabled:opacity-45"
      >
        <SendIcon className="size-4" />
        <span>{t("send")}</span>
      </Button>
      <p id={hintId} className="sr-only">
        {t("composerHint")}
      </p>
    </form>
  );
}

function RadioField({ name, label, checked, onChange }: { name: string; label: string; checked: boolean; onChange: () => void }) {
  const id = useId();
  return (
    <span className="flex items-center gap-1">
      <input id={id} type="radio" name={name} checked={checked} onChange={onChange} className="size-3.5 accent-accent" />
      <label htmlFor={id}>{label}</label>
    </span>
  );
}

function CheckboxField({ label, checked, onChange }: { label: string; checked: boolean; onChange: (checked: boolean) => void }) {
  const id = useId();
  return (
    <span className="flex items-center gap-1.5">
      <input id={id} type="checkbox" checked={checked} onChange={(event) => onChange(event.target.checked)} className="size-4 accent-accent" />
      <label htmlFor={id}>{label}</label>
    </span>
  );
}
