// UI strings: the two dictionaries (en.ts, zh.ts, kept key for key by the type) and language helpers.

import { en } from "./en";
import { zh } from "./zh";

export const LANGS = ["en", "zh"] as const;
export type Lang = (typeof LANGS)[number];

export const LANG_NAMES: Record<Lang, string> = { en: "English", zh: "中文" };

export type Dictionary = { [K in keyof typeof en]: string };
export type MessageKey = keyof Dictionary;

export const dictionaries: Record<Lang, Dictionary> = { en: { ...en }, zh };

export function isLang(value: unknown): value is Lang {
  return typeof value === "string" && (LANGS as readonly string[]).includes(value);
}

/** Maps a BCP 47 tag (navigator.language, Accept-Language) to a UI language. */
export function langFromTag(tag: string | null | undefined): Lang | null {
  if (!tag) return null;
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0];
  if (primary === "zh") return "zh";
  if (primary === "en") return "en";
  return null;
}

export function translate(dict: Dictionary, key: MessageKey, vars?: Record<string, string | number>): string {
  const text = dict[key];
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}

export const LANG_COOKIE = "herald-lang";
export const LANG_STORAGE_KEY = "herald.lang";
