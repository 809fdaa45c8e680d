import { cookies, headers } from "next/headers";
import { LANG_COOKIE, isLang, langFromTag, type Lang } from "./dictionaries";

/**
 * The language the server renders in. The browser's choice lives in
 * localStorage, which the server can't read; the client mirrors it into a
 * cookie so the first paint is already in the right language. Without the
 * cookie, Accept-Language stands in for navigator.language (browsers derive
 * both from the same setting).
 */
export async function getServerLang(): Promise<Lang> {
  const cookieLang = (await cookies()).get(LANG_COOKIE)?.value;
  if (isLang(cookieLang)) return cookieLang;
  const accept = (await headers()).get("accept-language") ?? "";
  for (const part of accept.split(",")) {
    const lang = langFromTag(part.split(";")[0]);
    if (lang) return lang;
  }
  return "en";
}
