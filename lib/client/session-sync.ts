// Sign-out reaches every tab of this browser at once: the tab that signs out
// tells the others over a BroadcastChannel; each closes its feed and goes to
// sign-in (coming back to the same page afterwards). What was typed in a
// composer is already in localStorage (./draft.ts) and comes back then.

import { signInHref } from "./api";
import { stopFeed } from "./feed";

const CHANNEL = "herald-session";
const SIGNED_OUT = "signed-out";

export function announceSignOut(): void {
  if (typeof BroadcastChannel === "undefined") return;
  const channel = new BroadcastChannel(CHANNEL);
  channel.postMessage(SIGNED_OUT);
  channel.close();
}

/** Listens while a signed-in page is open; returns the stop function. */
export function followSignOut(): () => void {
  if (typeof BroadcastChannel === "undefined") return () => {};
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (event: MessageEvent) => {
    if (event.data !== SIGNED_OUT) return;
    // Nothing more for this account may arrive in this tab.
    stopFeed();
    const href = signInHref();
    window.location.assign(`${href}${href.includes("?") ? "&" : "?"}signedOut=1`);
  };
  return () => channel.close();
}
