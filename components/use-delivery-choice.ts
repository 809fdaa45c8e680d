"use client";

import { useState } from "react";
import type { DeliveryRequest } from "@/lib/client/api";
import {
  minutesText,
  parseDueMinutes,
  secondsUntilTimeOfDay,
  timeOfDayIn,
  type DeliveryMode,
} from "@/lib/client/delivery";
import { useTimeZone } from "@/lib/client/time-zone";

const DEFAULT_MINUTES = "10";

/**
 * The delivery picker's state. One due time, given one way: a number of
 * minutes or a time of day on the account's clock; only the chosen field shows
 * and the other follows it.
 */
export function useDeliveryChoice() {
  const timeZone = useTimeZone();
  const [mode, setMode] = useState<DeliveryMode>("none");
  const [minutes, setMinutesText] = useState(DEFAULT_MINUTES);
  const [dueKind, setDueKindState] = useState<"in" | "at">("in");
  const [timeOfDay, setTimeOfDayText] = useState("");
  const [reportAnyway, setReportAnyway] = useState(false);
  const [stopAtDeadline, setStopAtDeadline] = useState(false);
  const [showMinutesError, setShowMinutesError] = useState(false);
  const dueInSeconds = parseDueMinutes(minutes);
  const minutesInvalid = mode !== "none" && dueInSeconds === null;

  const setMinutes = (text: string) => {
    setMinutesText(text);
    setTimeOfDayText("");
  };
  const setTimeOfDay = (text: string) => {
    setTimeOfDayText(text);
    const seconds = secondsUntilTimeOfDay(text, new Date(), timeZone);
    if (seconds !== null) setMinutesText(minutesText(seconds));
  };
  const setDueKind = (kind: "in" | "at") => {
    setDueKindState(kind);
    if (kind === "in") setTimeOfDayText("");
    // Starts at the moment the minutes already describe, on the account's clock.
    else if (!timeOfDay)
      setTimeOfDayText(timeOfDayIn(dueInSeconds ?? Number(DEFAULT_MINUTES) * 60, new Date(), timeZone));
  };

  /** What goes with the message; a time of day is counted from the moment of sending, not of typing. */
  const request = (): DeliveryRequest | undefined => {
    const due =
      dueKind === "at" && timeOfDay
        ? (secondsUntilTimeOfDay(timeOfDay, new Date(), timeZone) ?? dueInSeconds)
        : dueInSeconds;
    if (mode === "none" || due === null) return undefined;
    return {
      mode,
      dueInSeconds: due,
      reportIfUnfinished: reportAnyway,
      ...(stopAtDeadline ? { allowOvertime: false } : {}),
    };
  };
  /** A deadline belongs to one message; the next one starts without. */
  const reset = () => {
    setMode("none");
    setMinutesText(DEFAULT_MINUTES);
    setDueKindState("in");
    setTimeOfDayText("");
    setReportAnyway(false);
    setStopAtDeadline(false);
    setShowMinutesError(false);
  };

  return {
    mode,
    setMode,
    minutes,
    setMinutes,
    dueKind,
    setDueKind,
    timeOfDay,
    setTimeOfDay,
    reportAnyway,
    setReportAnyway,
    stopAtDeadline,
    setStopAtDeadline,
    dueInSeconds,
    minutesInvalid,
    showMinutesError,
    setShowMinutesError,
    request,
    reset,
  };
}

export type DeliveryChoice = ReturnType<typeof useDeliveryChoice>;
