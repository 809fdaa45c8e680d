import { NextResponse, type NextRequest } from "next/server";
import { contentSecurityPolicy, newNonce } from "@/lib/security/csp";

/**
 * A fresh script nonce and CSP for every page. Next finds the nonce in the
 * *request's* Content-Security-Policy header and puts it on the scripts it
 * renders; the browser enforces the same policy from the response. (Pages are
 * dynamic anyway: the root layout reads cookies.)
 */
export function proxy(request: NextRequest) {
  const csp = contentSecurityPolicy(newNonce(), { dev: process.env.NODE_ENV === "development" });
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", csp);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", csp);
  return response;
}

export const config = {
  matcher: [
    {
      // Not /api (JSON and the SSE feed stay untouched and fast; the static
      // headers in next.config.ts still apply), not build assets or the icon.
      // Router prefetches are RSC payloads, never documents.
      source: "/((?!api|_next/static|_next/image|favicon\\.ico|icon\\.svg).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
