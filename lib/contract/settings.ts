import { z } from "zod";
import { canonicalTimeZone, MAX_TIME_ZONE_CHARS } from "./clock";

/** Account settings (docs/api.md#settings): what GET /api/settings returns and PATCH takes. */

export const EMAIL_NOTICE_MODES = ["off", "timed", "all"] as const;
export type EmailNoticeMode = (typeof EMAIL_NOTICE_MODES)[number];

export const SETTINGS_LANGS = ["en", "zh"] as const;

const timeZone = z
  .string()
  .max(MAX_TIME_ZONE_CHARS, `must be at most ${MAX_TIME_ZONE_CHARS} characters`)
  .transform((v, ctx) => {
    const zone = canonicalTimeZone(v);
    if (zone === null) {
      ctx.addIssue({ code: "custom", message: "must be an IANA time zone such as Europe/Berlin or Asia/Shanghai" });
      return z.NEVER;
    }
    return zone;
  });

/** PATCH is partial: any subset, at least one field; unknown fields are refused by name. */
export const settingsPatchBody = z
  .strictObject({
    language: z.enum(SETTINGS_LANGS, { message: 'must be "en" or "zh"' }).optional(),
    timeZone: timeZone.optional(),
    emailNotices: z.enum(EMAIL_NOTICE_MODES, { message: 'must be "off", "timed" or "all"' }).optional(),
  })
  .refine((b) => b.language !== undefined || b.timeZone !== undefined || b.emailNotices !== undefined, {
    message: "give at least one of language, timeZone, emailNotices",
  });
export type SettingsPatch = z.output<typeof settingsPatchBody>;

export interface PublicSettings {
  language: (typeof SETTINGS_LANGS)[number];
  timeZone: string;
  emailNotices: EmailNoticeMode;
  /** False when the server has no SMTP_URL: email is off whatever emailNotices says. */
  emailAvailable: boolean;
  /** The account's address was proven by its verification link; notice email goes to verified addresses only. */
  emailVerified: boolean;
}
