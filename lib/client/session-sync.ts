// Sign-out reaches every tab of this browser at once: the tab that signs out
// tells the others over a BroadcastChannel; each closes its feed and goes to
// sign-in (coming back to the same page afterwards). A sign-out is the person
// leaving this browser, which may be shared: every tab drops its unsent drafts
// (./draft.ts), the signing one before its request, so none outlives it. A
// session that merely ended (expired, revoked elsewhere) keeps them for the same
// account only.
//
// Two messages, because the others may see the session end before the signing tab
// hears back: "signing-out" goes before the request, so a 401 a tab meets meanwhile
// (its feed ended with the session, a poll) is known for a sign-out elsewhere;
// "signed-out" goes once the session is gone.

import { goToSignIn, noteSignOutElsewhere } from "./api";
import { clearDrafts } from "./draft";
import { stopFeed } from "./feed";

const CHANNEL = "herald-session";
const SIGNING_OUT = "signing-out";
const SIGNED_OUT = "signed-out";
// The signing tab may be closed mid-request: its "signed-out" then never comes.
const SIGNED_OUT_FALLBACK_MS = 10_000;

// One channel per tab for both sending and listening: a BroadcastChannel never
// receives its own messages, so the tab that signs out does not also follow
// itself to a second sign-in URL.
let channel: BroadcastChannel | null = null;

function tabChannel(): BroadcastChannel | null {
  if (typeof BroadcastChannel === "undefined") return null;
  channel ??= new BroadcastChannel(CHANNEL);
  return channel;
}

/** Before the sign-out request. */
export function announceSigningOut(): void {
  clearDrafts();
  tabChannel()?.postMessage(SIGNING_OUT);
}

/** After it, whatever its answer: the signing tab leaves for sign-in either way. */
export function announceSignOut(): void {
  // Sign out of all devices and account deletion announce only this one.
  clearDrafts();
  tabChannel()?.postMessage(SIGNED_OUT);
}

/** Listens while a signed-in page is open; returns the stop function. */
export function followSignOut(): () => void {
  const ch = tabChannel();
  if (!ch) return () => {};
  let fallback: ReturnType<typeof setTimeout> | null = null;
  const onMessage = (event: MessageEvent) => {
    if (event.data !== SIGNING_OUT && event.data !== SIGNED_OUT) return;
    // Nothing more for this account may arrive in this tab, and nothing typed here stays behind.
    stopFeed();
    clearDrafts();
    noteSignOutElsewhere();
    if (event.data === SIGNED_OUT) goToSignIn();
    else fallback ??= setTimeout(goToSignIn, SIGNED_OUT_FALLBACK_MS);
  };
  ch.addEventListener("message", onMessage);
  return () => {
    ch.removeEventListener("message", onMessage);
    if (fallback) clearTimeout(fallback);
  };
}
