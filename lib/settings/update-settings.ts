import { getDb } from "@/lib/db/client";
import type { PublicSettings, SettingsPatch } from "@/lib/contract/settings";
import type { Lang } from "@/lib/i18n/dictionaries";
import { toPublicSettings } from "./queries";

/**
 * Applies the given fields only (PATCH). Not a feed event: settings are read
 * when a page loads, and a changed language reaches other tabs through
 * localStorage. updatedAt is better-auth's and moves with it.
 */
export async function updateSettings(userId: string, patch: SettingsPatch, fallbackLang: Lang): Promise<PublicSettings> {
  const row = await getDb().user.update({
    where: { id: userId },
    data: {
      ...(patch.language !== undefined ? { language: patch.language } : {}),
      ...(patch.timeZone !== undefined ? { timeZone: patch.timeZone } : {}),
      ...(patch.emailNotices !== undefined ? { emailNotices: patch.emailNotices } : {}),
    },
    select: { language: true, timeZone: true, emailNotices: true },
  });
  return toPublicSettings(row, fallbackLang);
}
