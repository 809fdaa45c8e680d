import type { I18n } from "@/lib/client/i18n";
import { dictionaries, type MessageKey } from "@/lib/i18n/dictionaries";

/**
 * A notice in the reader's language, rebuilt from its structured fields; null
 * when there is no template (failures and input requests carry data, not
 * wording), and the stored English text is shown instead.
 */
export function localNoticeText(
  t: I18n["t"],
  n: { key: string; outcome: string; title: string; publicationId: string | null },
): string | null {
  const variant = n.key === "due" && n.outcome === "missed" ? (n.publicationId ? "_partial" : "_none") : "";
  const id = `notice_${n.key}_${n.outcome}${variant}`;
  return id in dictionaries.en ? t(id as MessageKey, { title: n.title }) : null;
}
