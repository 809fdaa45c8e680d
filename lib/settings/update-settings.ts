import { getDb } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import type { PublicSettings, SettingsPatch } from "@/lib/contract/settings";
import type { Lang } from "@/lib/i18n/dictionaries";
import { emailAvailable, SETTINGS_SELECT, toPublicSettings } from "./queries";

/**
 * Applies the given fields only (PATCH). Not a feed event: settings are read
 * when a page loads, and a changed language reaches other tabs through
 * localStorage. updatedAt is better-auth's and moves with it.
 *
 * Email notices carry text the account chose (task titles) to the account's
 * address, so they are only turned on for an address its owner proved by the
 * verification link; anyone could otherwise sign up with a stranger's address
 * and have Herald mail them. Without SMTP_URL nothing is mailed and no link can
 * be sent, so the choice is stored as before; the email loop still sends to
 * verified addresses only.
 */
export async function updateSettings(
  userId: string,
  patch: SettingsPatch,
  fallbackLang: Lang,
): Promise<PublicSettings> {
  const turningOn = patch.emailNotices !== undefined && patch.emailNotices !== "off";
  // The check, the write and the read are one statement, so a concurrent change of the address cannot slip between them.
  const row = await getDb()
    .user.update({
      where: { id: userId, ...(turningOn && emailAvailable() ? { emailVerified: true } : {}) },
      data: {
        ...(patch.language !== undefined ? { language: patch.language } : {}),
        ...(patch.timeZone !== undefined ? { timeZone: patch.timeZone } : {}),
        ...(patch.emailNotices !== undefined ? { emailNotices: patch.emailNotices } : {}),
      },
      select: SETTINGS_SELECT,
    })
    .catch((e: unknown) => {
      if ((e as { code?: string }).code === "P2025") {
        throw new ApiError(
          "email_unverified",
          "emailNotices: confirm your email address first (Settings sends the link)",
          "emailNotices",
        );
      }
      throw e;
    });
  return toPublicSettings(row, fallbackLang);
}
