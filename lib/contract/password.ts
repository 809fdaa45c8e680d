/** Password length bounds, shared by the browser forms and the server's policy (lib/auth/password-policy.ts). */
export const MIN_PASSWORD_LENGTH = 8;
// better-auth's own maximum; a longer one would only be refused later with a less clear message.
export const MAX_PASSWORD_LENGTH = 128;

/**
 * Where the browser may go after signing in: a same-origin path only ("/c/…",
 * "/settings"), never "//host", "/\\host" or a scheme, so a crafted link cannot
 * bounce a fresh session to another site. Anything else lands on "/".
 */
export function safeNextPath(next: string | null | undefined): string {
  if (typeof next !== "string" || next.length === 0 || next.length > 512) return "/";
  if (!next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/";
  // Control characters and backslashes: browsers fold some of them into "//".
  // eslint-disable-next-line no-control-regex -- control characters are exactly what it looks for
  if (/[\u0000-\u001f\u007f\\]/.test(next)) return "/";
  if (next.startsWith("/sign-in") || next.startsWith("/sign-up") || next.startsWith("/api/")) return "/";
  return next;
}
