"use client";

import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useSyncExternalStore,
  type ReactNode,
} from "react";
import {
  LANG_COOKIE,
  LANG_STORAGE_KEY,
  dictionaries,
  isLang,
  langFromTag,
  translate,
  type Dictionary,
  type Lang,
  type MessageKey,
} from "@/lib/i18n/dictionaries";
import { useHydrated } from "@/lib/client/use-hydrated";
import { patchSettings } from "@/lib/client/api";

// The choice is per browser, not per tab: every tab follows a change made in
// another one through the storage event.
const listeners = new Set<() => void>();
let cached: Lang | null = null;

function readStoredLang(): Lang | null {
  try {
    const stored = window.localStorage.getItem(LANG_STORAGE_KEY);
    return isLang(stored) ? stored : null;
  } catch {
    // Storage can throw (privacy mode, disabled cookies); fall back to the browser language.
    return null;
  }
}

function detectBrowserLang(): Lang {
  const tags = navigator.languages?.length ? navigator.languages : [navigator.language];
  for (const tag of tags) {
    const lang = langFromTag(tag);
    if (lang) return lang;
  }
  return "en";
}

function getClientLang(): Lang {
  if (cached === null) cached = readStoredLang() ?? detectBrowserLang();
  return cached;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key !== null && event.key !== LANG_STORAGE_KEY) return;
    cached = null;
    listener();
  };
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", onStorage);
  };
}

let seeded = false;

/**
 * The signed-in account's language beats this browser's stored choice (a second
 * device starts in it). Applied once per page load, before the first client
 * snapshot is read, so the page never flashes the other language.
 */
function seedAccountLang(accountLang: Lang | null): void {
  if (seeded || typeof window === "undefined") return;
  seeded = true;
  if (accountLang === null || readStoredLang() === accountLang) return;
  try {
    window.localStorage.setItem(LANG_STORAGE_KEY, accountLang);
  } catch {
    // Still applied to this page below.
  }
  cached = accountLang;
}

export function setLang(lang: Lang): void {
  try {
    window.localStorage.setItem(LANG_STORAGE_KEY, lang);
  } catch {
    // Not remembered across visits, but still applied to this page.
  }
  cached = lang;
  for (const listener of listeners) listener();
}

/** Locale for Intl: the browser's own regional variant when it matches the UI language. */
function intlLocale(lang: Lang): string {
  if (typeof navigator !== "undefined") {
    const tags = navigator.languages?.length ? navigator.languages : [navigator.language];
    const match = tags.find((tag) => langFromTag(tag) === lang);
    if (match) return match;
  }
  return lang === "zh" ? "zh-CN" : "en-US";
}

export interface I18n {
  lang: Lang;
  dict: Dictionary;
  t: (key: MessageKey, vars?: Record<string, string | number>) => string;
  setLang: (lang: Lang) => void;
  /** Intl locale for dates and numbers; the time zone is always the browser's. */
  locale: string;
}

const I18nContext = createContext<I18n | null>(null);

export function I18nProvider({
  initialLang,
  accountLang = null,
  signedIn = false,
  children,
}: {
  initialLang: Lang;
  accountLang?: Lang | null;
  signedIn?: boolean;
  children: ReactNode;
}) {
  seedAccountLang(accountLang);
  // The server snapshot is what the server rendered with, so hydration matches;
  // React then re-renders once with the browser's choice if it differs.
  const lang = useSyncExternalStore(subscribe, getClientLang, () => initialLang);
  const hydrated = useHydrated();

  useEffect(() => {
    document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
    // Lets the next server render (and the 404 page) use the same language.
    document.cookie = `${LANG_COOKIE}=${lang}; path=/; max-age=31536000; samesite=lax`;
  }, [lang]);

  const t = useCallback(
    (key: MessageKey, vars?: Record<string, string | number>) => translate(dictionaries[lang], key, vars),
    [lang],
  );

  const value = useMemo<I18n>(
    () => ({
      lang,
      dict: dictionaries[lang],
      t,
      // Signed in, the choice is kept on the account too (PATCH /api/settings); a failed save keeps it in this browser.
      setLang: signedIn
        ? (next: Lang) => {
            setLang(next);
            void patchSettings({ language: next }).catch(() => {});
          }
        : setLang,
      locale: hydrated ? intlLocale(lang) : lang === "zh" ? "zh-CN" : "en-US",
    }),
    [lang, t, hydrated, signedIn],
  );

  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const value = useContext(I18nContext);
  if (!value) throw new Error("useI18n must be used inside <I18nProvider>");
  return value;
}
