import { env } from "@/lib/config/env";
import { getDb } from "@/lib/db/client";
import { EMAIL_NOTICE_MODES, type EmailNoticeMode, type PublicSettings } from "@/lib/contract/settings";
import { isLang, type Lang } from "@/lib/i18n/dictionaries";

/** Email is a server capability: without SMTP_URL nothing is sent, whatever an account chose. */
export function emailAvailable(): boolean {
  return env("SMTP_URL") !== undefined;
}

export const DEFAULT_TIME_ZONE = "UTC";

export interface SettingsRow {
  language: string | null;
  timeZone: string | null;
  emailNotices: string;
  emailVerified: boolean;
}

export const asEmailMode = (v: string): EmailNoticeMode =>
  (EMAIL_NOTICE_MODES as readonly string[]).includes(v) ? (v as EmailNoticeMode) : "off";

/** `fallbackLang` answers for an account that never chose (what this browser is shown). */
export function toPublicSettings(row: SettingsRow, fallbackLang: Lang): PublicSettings {
  return {
    language: isLang(row.language) ? row.language : fallbackLang,
    timeZone: row.timeZone ?? DEFAULT_TIME_ZONE,
    emailNotices: asEmailMode(row.emailNotices),
    emailAvailable: emailAvailable(),
    emailVerified: row.emailVerified,
  };
}

export const SETTINGS_SELECT = { language: true, timeZone: true, emailNotices: true, emailVerified: true } as const;

export async function getSettings(userId: string, fallbackLang: Lang): Promise<PublicSettings> {
  const row = await getDb().user.findUniqueOrThrow({ where: { id: userId }, select: SETTINGS_SELECT });
  return toPublicSettings(row, fallbackLang);
}

/** The account's chosen language, for the server's first render; null if it never chose. */
/** How the account reads: its language (null = not chosen) and its clock (null = not set, UTC). */
export async function accountReading(userId: string): Promise<{ language: Lang | null; timeZone: string | null }> {
  const row = await getDb().user.findUnique({ where: { id: userId }, select: { language: true, timeZone: true } });
  return { language: isLang(row?.language) ? row.language : null, timeZone: row?.timeZone ?? null };
}

export async function accountLanguage(userId: string): Promise<Lang | null> {
  const row = await getDb().user.findUnique({ where: { id: userId }, select: { language: true } });
  return isLang(row?.language) ? row.language : null;
}
