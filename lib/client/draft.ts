// The composer's unsent text, kept in localStorage per page so an expired
// session or a reload does not lose it. Removed when the message is sent or the
// box is emptied.
//
// A browser may be shared. So a draft belongs to the account that typed it: it
// is stored with that account's id and comes back only to the same account
// (after a session ended on its own, the next person to sign in here may be
// someone else). A sign-out is the person saying they are done on this browser:
// every draft goes, in every tab (./session-sync.ts calls `clearDrafts`).

const PREFIX = "herald.draft:";
/** Drafts are for a person's typing, not a store: a longer one is not kept. */
const MAX_DRAFT_CHARS = 16_000;

export function draftKey(path: string): string {
  return PREFIX + path;
}

// Asked once per page: the account does not change without a full load (sign-in and sign-out both navigate).
let account: Promise<string | null> | null = null;
function currentAccount(): Promise<string | null> {
  // Loaded when a draft is first read or written: the sign-out paths that clear drafts need no auth client.
  account ??= import("@/lib/auth/client")
    .then(({ authClient }) => authClient.getSession())
    .then((r) => r.data?.user.id ?? null)
    .catch(() => null);
  return account;
}

// Set by a sign-out: the tab is on its way to sign-in, and a keystroke meanwhile must not write a draft back.
let signingOut = false;

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

// One entry per page and account, so another account's typing on the same page neither shows nor replaces it.
// An entry from before drafts had an owner (no account in its key) is never read: nobody can say whose it is.
const entry = (key: string, accountId: string) => `${key}\u0000${accountId}`;

/** The draft this account left on this page, or "". */
export async function readDraft(key: string): Promise<string> {
  const me = await currentAccount();
  if (me === null) return "";
  try {
    return storage()?.getItem(entry(key, me)) ?? "";
  } catch {
    return "";
  }
}

export function writeDraft(key: string, text: string): void {
  if (signingOut) return;
  // Writes wait for the same answer, so they land in the order they were made.
  void currentAccount().then((me) => {
    const s = storage();
    if (!s || me === null || signingOut) return;
    try {
      if (text.trim() === "" || text.length > MAX_DRAFT_CHARS) s.removeItem(entry(key, me));
      else s.setItem(entry(key, me), text);
    } catch {
      // Storage full or blocked (private mode): the draft simply isn't kept.
    }
  });
}

/** Every draft of this browser, whoever wrote it; no more are written from this page. */
export function clearDrafts(): void {
  signingOut = true;
  const s = storage();
  if (!s) return;
  try {
    const keys: string[] = [];
    for (let i = 0; i < s.length; i++) {
      const k = s.key(i);
      if (k?.startsWith(PREFIX)) keys.push(k);
    }
    for (const k of keys) s.removeItem(k);
  } catch {
    // Blocked storage holds no drafts.
  }
}
