import { cookies, headers } from "next/headers";
import { LANG_COOKIE, isLang, langFromTag, type Lang } from "./dictionaries";

/**
 * The language the server renders in. A signed-in account's own choice comes
 * first, so a second device starts in it. Otherwise the browser's choice lives
 * in localStorage, which the server can't read; the client mirrors it into a
 * cookie so the first paint is already in the right language. Without the
 * cookie, Accept-Language stands in for navigator.language (browsers derive
 * both from the same setting).
 */
export function pickLang(from: {
  account?: string | null;
  cookie?: string | null;
  acceptLanguage?: string | null;
}): Lang {
  if (isLang(from.account)) return from.account;
  if (isLang(from.cookie)) return from.cookie;
  for (const part of (from.acceptLanguage ?? "").split(",")) {
    const lang = langFromTag(part.split(";")[0]);
    if (lang) return lang;
  }
  return "en";
}

/** The cookie's value in a raw Cookie header (route handlers have no next/headers context in tests). */
export function langCookieOf(cookieHeader: string | null): string | null {
  for (const part of (cookieHeader ?? "").split(";")) {
    const [name, value] = part.trim().split("=", 2);
    if (name === LANG_COOKIE) return value ?? null;
  }
  return null;
}

export async function getServerLang(accountLang?: string | null): Promise<Lang> {
  const cookieLang = (await cookies()).get(LANG_COOKIE)?.value;
  return pickLang({
    account: accountLang,
    cookie: cookieLang,
    acceptLanguage: (await headers()).get("accept-language"),
  });
}
