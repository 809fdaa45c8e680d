// Sign-out reaches every tab of this browser at once: the tab that signs out
// tells the others over a BroadcastChannel; each closes its feed and goes to
// sign-in (coming back to the same page afterwards). What was typed in a
// composer is already in localStorage (./draft.ts) and comes back then.

import { signInHref } from "./api";
import { stopFeed } from "./feed";

const CHANNEL = "herald-session";
const SIGNED_OUT = "signed-out";

// One channel per tab for both sending and listening: a BroadcastChannel never
// receives its own messages, so the tab that signs out does not also follow
// itself to a second sign-in URL.
let channel: BroadcastChannel | null = null;

function tabChannel(): BroadcastChannel | null {
  if (typeof BroadcastChannel === "undefined") return null;
  channel ??= new BroadcastChannel(CHANNEL);
  return channel;
}

export function announceSignOut(): void {
  tabChannel()?.postMessage(SIGNED_OUT);
}

/** Listens while a signed-in page is open; returns the stop function. */
export function followSignOut(): () => void {
  const ch = tabChannel();
  if (!ch) return () => {};
  const onMessage = (event: MessageEvent) => {
    if (event.data !== SIGNED_OUT) return;
    // Nothing more for this account may arrive in this tab.
    stopFeed();
    const href = signInHref();
    window.location.assign(`${href}${href.includes("?") ? "&" : "?"}signedOut=1`);
  };
  ch.addEventListener("message", onMessage);
  return () => ch.removeEventListener("message", onMessage);
}
