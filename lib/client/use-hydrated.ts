import { useSyncExternalStore } from "react";

const noopSubscribe = () => () => {};

/**
 * False in the server render and during hydration, true once React owns the
 * DOM. Gates output that depends on the browser (locale, time zone), and keeps
 * controls inert until their handlers exist: a click on server-rendered HTML
 * would otherwise be lost, or submit a form natively (password in the URL).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noopSubscribe,
    () => true,
    () => false,
  );
}
