// The page Content-Security-Policy. proxy.ts sends it per request
// because its script nonce must be fresh for every HTML response; Next reads the
// nonce back from the request's Content-Security-Policy header and stamps it on
// its own inline and bundle scripts.

/** 128 random bits, base64: the shape Next's nonce parser accepts. */
export function newNonce(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
}

export function contentSecurityPolicy(nonce: string, { dev = false }: { dev?: boolean } = {}): string {
  return [
    "default-src 'self'",
    // 'strict-dynamic': scripts the nonce'd bootstrap inserts (Next's chunk
    // loader) are trusted; host sources and 'self' are then ignored by CSP3
    // browsers. next dev rebuilds server error stacks with eval; production never evals.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    // 'unsafe-inline' styles: Radix Dialog's scroll lock (react-style-singleton)
    // injects <style> elements and React/Next write style attributes, none with a
    // nonce (and a nonce here would switch 'unsafe-inline' off). Styles cannot run
    // script, and img-src/font-src keep CSS from fetching anything remote.
    "style-src 'self' 'unsafe-inline'",
    // No remote hosts: an <img> in model or remote text must not become a read beacon.
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Sent on every response, /api included (next.config.ts `headers()`). */
export const STATIC_SECURITY_HEADERS: ReadonlyArray<{ key: string; value: string }> = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  // Legacy twin of frame-ancestors 'none', for browsers without CSP2 and for /api responses.
  { key: "X-Frame-Options", value: "DENY" },
];
