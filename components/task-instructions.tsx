"use client";

import { useId, useState } from "react";
import { errorWords } from "@/lib/client/error-words";
import { useSendInstructions } from "@/lib/client/queries";
import type { PublicTask } from "@/lib/client/tasks";
import type { PublicTaskDetail } from "@/lib/contract/shapes";
import { isTerminalStatus } from "@/lib/contract/task";
import { useI18n } from "@/lib/client/i18n";
import { Button } from "./ui/button";
import { InlineAlert } from "./ui/inline-alert";

const MAX_CHARS = 4000;

/**
 * Steering a running task from its details: the owner's new instructions go
 * to the update endpoint and wait for the next step, which says it applied
 * them. A task whose driver cannot take instructions says so up front rather
 * than offering a form that would fail.
 */
export function TaskInstructions({
  task,
  instructions,
}: {
  task: PublicTask;
  instructions: PublicTaskDetail["instructions"];
}) {
  const { t } = useI18n();
  const [text, setText] = useState("");
  const mutation = useSendInstructions();
  const id = useId();
  const open = !isTerminalStatus(task.status) && !task.cancelRequested;
  if (!open && instructions.pending.length === 0 && instructions.applied.length === 0) return null;

  return (
    <div className="space-y-1.5" data-testid="task-instructions">
      <h5 className="text-[0.7rem] font-semibold tracking-wide text-muted uppercase">{t("instructionsTitle")}</h5>
      {instructions.applied.length > 0 && (
        <ul className="space-y-0.5 text-xs">
          {instructions.applied.map((a, i) => (
            <li key={`${a.step}-${i}`} data-instruction="applied" className="[overflow-wrap:anywhere]">
              <span className="text-muted">{t("instructionApplied", { step: a.step })}: </span>
              {a.text}
            </li>
          ))}
        </ul>
      )}
      {instructions.pending.length > 0 && (
        <ul className="space-y-0.5 text-xs">
          {instructions.pending.map((p, i) => (
            <li key={i} data-instruction="pending" className="[overflow-wrap:anywhere]">
              <span className="text-muted">{t("instructionPending")}: </span>
              {p}
            </li>
          ))}
        </ul>
      )}
      {open && !instructions.accepted && <p className="text-xs text-muted">{t("instructionsUnsupported")}</p>}
      {open && instructions.accepted && (
        <form
          className="space-y-2"
          onSubmit={(e) => {
            e.preventDefault();
            const message = text.trim();
            if (!message) return;
            mutation.mutate({ task, message }, { onSuccess: () => setText("") });
          }}
        >
          <label htmlFor={id} className="text-xs">
            {t("newInstructions")}
          </label>
          <textarea
            id={id}
            value={text}
            onChange={(e) => setText(e.target.value)}
            rows={2}
            maxLength={MAX_CHARS}
            placeholder={t("newInstructionsHint")}
            className="w-full rounded-md border border-border bg-bg px-2 py-1.5 text-sm"
          />
          {mutation.isError && (
            <InlineAlert framed={false} size="xs" icon={false}>
              {errorWords(t, mutation.error)}
            </InlineAlert>
          )}
          <Button
            type="submit"
            variant="primary"
            size="md"
            disabled={!text.trim() || mutation.isPending}
            className="disabled:opacity-50"
          >
            {t("sendInstructions")}
          </Button>
        </form>
      )}
    </div>
  );
}
