import type { Lang } from "./dictionaries";

/** Any CJK ideograph makes a text Chinese: the same test the offline model and the host lines use. */
export function isChinese(text: string): boolean {
  return /[\u4e00-\u9fff]/.test(text);
}

/** The language to answer a text in (a request, a topic). */
export function langOfText(text: string): Lang {
  return isChinese(text) ? "zh" : "en";
}
