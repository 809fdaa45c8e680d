import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { nextCookies } from "better-auth/next-js";
import { getDb } from "@/lib/db/client";

function baseUrl(): string {
  return process.env.BETTER_AUTH_URL ?? `http://localhost:${process.env.PORT ?? 3000}`;
}

/**
 * better-auth compares Origin exactly; people open Herald as localhost or
 * 127.0.0.1 interchangeably, so both spellings of the configured origin count.
 */
export function trustedOrigins(): string[] {
  const url = new URL(baseUrl());
  const alt = new URL(url);
  if (url.hostname === "localhost") alt.hostname = "127.0.0.1";
  else if (url.hostname === "127.0.0.1") alt.hostname = "localhost";
  const extra = (process.env.HERALD_TRUSTED_ORIGINS ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  return [...new Set([url.origin, alt.origin, ...extra])];
}

function createAuth() {
  return betterAuth({
    baseURL: baseUrl(),
    secret: process.env.BETTER_AUTH_SECRET,
    trustedOrigins: trustedOrigins(),
    database: prismaAdapter(getDb(), { provider: "postgresql" }),
    emailAndPassword: { enabled: true, minPasswordLength: 8, autoSignIn: true },
    session: { cookieCache: { enabled: false } },
    // Throttles password guessing per address; HERALD_AUTH_RATE_LIMIT=off for test suites.
    rateLimit: {
      enabled: process.env.HERALD_AUTH_RATE_LIMIT !== "off",
      window: 60,
      max: 100,
      customRules: { "/sign-in/email": { window: 60, max: 20 }, "/sign-up/email": { window: 60, max: 20 } },
    },
    plugins: [nextCookies()],
  });
}

type Auth = ReturnType<typeof createAuth>;
const g = globalThis as unknown as { heraldAuth?: Auth };

// Built lazily: `next build` imports route modules without a database.
export function getAuth(): Auth {
  g.heraldAuth ??= createAuth();
  return g.heraldAuth;
}

export interface SessionUser {
  id: string;
  name: string;
  email: string;
}

export async function userFromHeaders(headers: Headers): Promise<SessionUser | null> {
  const session = await getAuth().api.getSession({ headers });
  if (!session) return null;
  const { id, name, email } = session.user;
  return { id, name, email };
}
