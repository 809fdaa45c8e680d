// The composer's unsent text, kept in localStorage per page so a sign-out in
// another tab (./session-sync.ts), an expired session or a reload does not lose
// it. Removed when the message is sent or the box is emptied.

const PREFIX = "herald.draft:";
/** Drafts are for a person's typing, not a store: a longer one is not kept. */
const MAX_DRAFT_CHARS = 16_000;

export function draftKey(path: string): string {
  return PREFIX + path;
}

export function readDraft(key: string): string {
  try {
    return window.localStorage.getItem(key) ?? "";
  } catch {
    return "";
  }
}

export function writeDraft(key: string, text: string): void {
  try {
    if (text.trim() === "" || text.length > MAX_DRAFT_CHARS) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, text);
  } catch {
    // Storage full or blocked (private mode): the draft simply isn't kept.
  }
}
