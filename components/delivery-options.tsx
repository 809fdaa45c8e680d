"use client";

import { useId, type RefObject } from "react";
import { MAX_DUE_MINUTES } from "@/lib/client/delivery";
import { useI18n } from "@/lib/client/i18n";
import { CheckboxField, FIELD_CLASS, RadioField } from "./composer-fields";
import { DeliveryExplainer, TimeOfDayField } from "./delivery-picker";
import { NotifyOffer } from "./notify-offer";
import type { DeliveryChoice } from "./use-delivery-choice";
import { cn } from "./ui/cn";

/** The due time: minutes from now, or a time of day ("Due in (minutes)" / "At time"), one shown at a time. */
function DueFields({
  choice,
  minutesRef,
  errorId,
}: {
  choice: DeliveryChoice;
  minutesRef: RefObject<HTMLInputElement | null>;
  errorId: string;
}) {
  const { t } = useI18n();
  const minutesId = useId();
  const name = useId();
  const showError = choice.showMinutesError && choice.minutesInvalid;
  return (
    <>
      <span role="radiogroup" aria-label={t("dueKind")} className="flex items-center gap-2.5" data-testid="due-kind">
        <RadioField
          name={name}
          label={t("dueKindIn")}
          checked={choice.dueKind === "in"}
          onChange={() => choice.setDueKind("in")}
        />
        <RadioField
          name={name}
          label={t("dueKindAt")}
          checked={choice.dueKind === "at"}
          onChange={() => choice.setDueKind("at")}
        />
      </span>
      <span className={cn(choice.dueKind === "in" ? "flex" : "hidden", "items-center gap-1.5")}>
        {/* A phone reads "In minutes" just before it. */}
        <label htmlFor={minutesId} className="sr-only sm:not-sr-only">
          {t("dueInMinutes")}
        </label>
        <input
          ref={minutesRef}
          id={minutesId}
          type="number"
          inputMode="decimal"
          step="any"
          min="0"
          max={MAX_DUE_MINUTES}
          value={choice.minutes}
          onChange={(event) => choice.setMinutes(event.target.value)}
          onBlur={() => choice.setShowMinutesError(true)}
          aria-invalid={showError || undefined}
          aria-describedby={showError ? errorId : undefined}
          className={cn(FIELD_CLASS, "w-20", showError && "border-danger")}
        />
      </span>
      {choice.dueKind === "at" && (
        <TimeOfDayField value={choice.timeOfDay} className={FIELD_CLASS} onChange={choice.setTimeOfDay} />
      )}
    </>
  );
}

/**
 * What a deadline asks for once "Tell me at/by" is chosen: the due time, the two
 * switches, the sentence saying what will happen, and (once) the offer of
 * browser notifications. On a phone it scrolls inside a bounded height, so the
 * composer never takes half the screen.
 */
export function DeliveryOptions({
  choice,
  minutesRef,
}: {
  choice: DeliveryChoice;
  minutesRef: RefObject<HTMLInputElement | null>;
}) {
  const { t } = useI18n();
  const errorId = useId();
  if (choice.mode === "none") return null;
  return (
    <div
      data-testid="delivery-options"
      className="order-2 flex max-h-[34vh] basis-full flex-wrap items-center gap-x-3 gap-y-1.5 overflow-y-auto overscroll-contain sm:max-h-none sm:overflow-visible"
    >
      <DueFields choice={choice} minutesRef={minutesRef} errorId={errorId} />
      <CheckboxField label={t("reportIfUnfinished")} checked={choice.reportAnyway} onChange={choice.setReportAnyway} />
      <CheckboxField label={t("stopAtDeadline")} checked={choice.stopAtDeadline} onChange={choice.setStopAtDeadline} />
      {choice.showMinutesError && choice.minutesInvalid && (
        <p id={errorId} className="basis-full text-danger">
          {t("dueInvalid")}
        </p>
      )}
      <DeliveryExplainer
        mode={choice.mode}
        dueInSeconds={choice.dueInSeconds}
        timeOfDay={choice.dueKind === "at" ? choice.timeOfDay : ""}
        reportAnyway={choice.reportAnyway}
        stopAtDeadline={choice.stopAtDeadline}
      />
      <NotifyOffer />
    </div>
  );
}
