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

interface Stored {
  account: string;
  text: string;
}

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

function parse(raw: string | null): Stored | null {
  if (!raw) return null;
  try {
    const v = JSON.parse(raw) as Partial<Stored>;
    return typeof v?.account === "string" && typeof v.text === "string" ? { account: v.account, text: v.text } : null;
  } catch {
    // A draft from before drafts had an owner: nobody can say whose it is.
    return null;
  }
}

/** The draft this account left on this page, or "" (another account's stays where it is, unseen). */
export async function readDraft(key: string): Promise<string> {
  const stored = parse(storage()?.getItem(key) ?? null);
  if (!stored) return "";
  const me = await currentAccount();
  return me !== null && stored.account === me ? stored.text : "";
}

export function writeDraft(key: string, text: string): void {
  if (signingOut) return;
  const remove = text.trim() === "" || text.length > MAX_DRAFT_CHARS;
  // Writes wait for the same answer, so they land in the order they were made.
  void currentAccount().then((me) => {
    const s = storage();
    if (!s || signingOut) return;
    try {
      if (remove) {
        // Only our own: an emptied box does not throw away another account's draft.
        if (parse(s.getItem(key))?.account === me) s.removeItem(key);
      } else if (me !== null) s.setItem(key, JSON.stringify({ account: me, text } satisfies Stored));
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
