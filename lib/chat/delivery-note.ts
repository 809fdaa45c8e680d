import type { Tx } from "@/lib/db/kysely";
import { accountWording, countTasksStartedBy, userTrigger } from "./sql";
import { messageMetaOf } from "@/lib/contract/message";
import { formatMoment } from "@/lib/contract/clock";

/** Below this a research task rarely finishes in time (the composer's picker says the same: lib/client/delivery.ts). */
const SHORT_DUE_SECONDS = 60;

const WORDS = {
  en: {
    unused: (when: string) =>
      `No background task was started for this message, so the deadline you set (${when}) does not apply. Ask for research if you want a result by then.`,
    short: (seconds: number) =>
      `${seconds} seconds is very little time for research: expect to hear that it did not finish in time, with whatever it had by then.`,
    at: "tell me at",
    by: "tell me by",
  },
  zh: {
    unused: (when: string) =>
      `这条消息没有开始后台任务，所以你设置的期限（${when}）不适用。如果想在那之前拿到结果，请让我做研究。`,
    short: (seconds: number) => `${seconds} 秒对研究来说太短了：多半只能告诉你没能按时完成，以及到那时已有的结果。`,
    at: "到点告诉我",
    by: "限时内告诉我",
  },
} as const;

/**
 * A sentence the host adds under a chat reply about the message's delivery
 * contract: a deadline chosen for a message that started no task
 * says so instead of leaving a "Tell me by …" chip that never fires, and a
 * task started with a deadline under a minute says what to expect. Null when
 * there is nothing to say. Host text in the account's language and time zone,
 * never model text.
 */
export async function deliveryNote(
  tx: Tx,
  run: { id: string; kind: string; ownerId: string; conversationId: string; triggerMessageId: string | null },
): Promise<string | null> {
  if (run.kind !== "chat" || !run.triggerMessageId) return null;
  const trigger = await userTrigger(tx, { ...run, triggerMessageId: run.triggerMessageId });
  const delivery = trigger ? messageMetaOf("user", trigger.meta)?.delivery : undefined;
  if (!trigger || !delivery) return null;
  const started = await countTasksStartedBy(tx, run.ownerId, run.id, trigger.id);
  const user = await accountWording(tx, run.ownerId);
  const lang = user?.language === "zh" ? "zh" : "en";
  const w = WORDS[lang];
  if (started === 0)
    return w.unused(
      `${w[delivery.mode]} ${formatMoment(delivery.dueAt, { lang, timeZone: user?.timeZone, relative: "future" })}`,
    );
  if (delivery.dueInSeconds < SHORT_DUE_SECONDS) return w.short(Math.round(delivery.dueInSeconds));
  return null;
}

/** The reply with the note as its last paragraph (one message, not two). */
export function withDeliveryNote(reply: string, note: string | null): string {
  return note ? `${reply}\n\n_${note}_` : reply;
}
