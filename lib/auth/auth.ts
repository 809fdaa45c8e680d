import { env } from "@/lib/config/env";
import { canonicalTimeZone } from "@/lib/contract/clock";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "@/lib/contract/password";
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError, createAuthMiddleware, isAPIError } from "better-auth/api";
import { nextCookies } from "better-auth/next-js";
import { getDb } from "@/lib/db/client";
import { CLIENT_IP_HEADER } from "./client-ip";
import { notifySessionEnded } from "@/lib/events/session-liveness";
import { clear, consume, EMAIL_SIGN_IN_RULE, emailKey } from "./throttle";
import { passwordProblem, PASSWORD_TOO_COMMON, PASSWORD_TOO_COMMON_MESSAGE } from "./password-policy";
import { sendPasswordResetMail } from "./reset-mail";
import { sendVerificationMail } from "./verify-mail";
import { liveSessionUser } from "./session-lookup";
import { log } from "@/lib/util/log";

function baseUrl(): string {
  return env("BETTER_AUTH_URL") ?? `http://localhost:${env("PORT")}`;
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
  const extra = env("HERALD_TRUSTED_ORIGINS")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return [...new Set([url.origin, alt.origin, ...extra])];
}

/** HERALD_AUTH_RATE_LIMIT=off lifts every sign-in/sign-up limit (test suites). */
export function authRateLimitEnabled(): boolean {
  return env("HERALD_AUTH_RATE_LIMIT") !== "off";
}

const SIGN_IN_PATH = "/sign-in/email";

/**
 * Per-email throttle around password sign-in (lib/auth/throttle.ts). The attempt is
 * counted before the password is checked, so parallel guesses cannot all slip past
 * the limit; a successful sign-in clears the count.
 */
/** Endpoints that set a password, and the body field that carries it. */
const NEW_PASSWORD_FIELD: Record<string, "password" | "newPassword"> = {
  "/sign-up/email": "password",
  "/reset-password": "newPassword",
  "/change-password": "newPassword",
};

/**
 * The password policy (./password-policy.ts) before better-auth hashes anything.
 * Length stays better-auth's own check (its codes PASSWORD_TOO_SHORT/LONG); the
 * common-password list is ours.
 */
function checkNewPassword(path: string, body: unknown): void {
  const field = NEW_PASSWORD_FIELD[path];
  if (!field) return;
  const password = (body as Record<string, unknown> | undefined)?.[field];
  if (typeof password !== "string" || passwordProblem(password) !== "too_common") return;
  throw new APIError("BAD_REQUEST", { message: PASSWORD_TOO_COMMON_MESSAGE, code: PASSWORD_TOO_COMMON });
}

/** Reset emails per address: enough for a person who lost one, not an inbox flood. */
const RESET_EMAIL_RULE = { window: 60 * 60, max: 3 };

/** Endpoints that mail an address on request, and the bucket each counts in (the same budget per address). */
const MAILING_PATHS: Record<string, { bucket: string; what: string }> = {
  "/request-password-reset": { bucket: "reset", what: "reset emails" },
  "/send-verification-email": { bucket: "verify", what: "verification emails" },
};

async function throttleAccountEmail(path: string, body: unknown): Promise<void> {
  const mailing = MAILING_PATHS[path];
  if (!mailing || !authRateLimitEnabled()) return;
  const email = (body as { email?: unknown } | undefined)?.email;
  if (typeof email !== "string" || !email.trim()) return;
  // Counted whether or not the address has an account, so the answer tells nothing.
  const { allowed, retryAfter } = await consume(`${mailing.bucket}|${emailKey(email)}`, RESET_EMAIL_RULE);
  if (!allowed) {
    throw new APIError(
      "TOO_MANY_REQUESTS",
      { message: `Too many ${mailing.what} for this address. Try again later.`, code: "TOO_MANY_ATTEMPTS" },
      { "Retry-After": String(retryAfter ?? RESET_EMAIL_RULE.window) },
    );
  }
}

/**
 * API keys are credentials derived from the password: whoever knew the old
 * one may have minted keys with it, so a new password ends them all (their
 * rows are deleted, as a revoke does). lib/keys sits above lib/auth in the
 * layers, hence the statement here.
 */
async function revokeApiKeysOf(userId: string): Promise<void> {
  await getDb().apiKey.deleteMany({ where: { ownerId: userId } });
}

const beforeHook = createAuthMiddleware(async (ctx) => {
  checkNewPassword(ctx.path, ctx.body);
  await throttleAccountEmail(ctx.path, ctx.body);
  if (ctx.path !== SIGN_IN_PATH || !authRateLimitEnabled()) return;
  const email = (ctx.body as { email?: unknown } | undefined)?.email;
  if (typeof email !== "string" || !email.trim()) return;
  const { allowed, retryAfter } = await consume(emailKey(email), EMAIL_SIGN_IN_RULE);
  if (!allowed) {
    throw new APIError(
      "TOO_MANY_REQUESTS",
      { message: "Too many sign-in attempts for this account. Try again later.", code: "TOO_MANY_ATTEMPTS" },
      { "Retry-After": String(retryAfter ?? EMAIL_SIGN_IN_RULE.window) },
    );
  }
});

const afterHook = createAuthMiddleware(async (ctx) => {
  if (ctx.path === "/change-password") {
    // The answer names the account; an error answer changed nothing.
    const returned = ctx.context.returned as { user?: { id?: unknown } } | undefined;
    if (!isAPIError(returned) && typeof returned?.user?.id === "string") await revokeApiKeysOf(returned.user.id);
    return;
  }
  if (ctx.path !== SIGN_IN_PATH || !authRateLimitEnabled()) return;
  if (isAPIError(ctx.context.returned)) return;
  const email = (ctx.body as { email?: unknown } | undefined)?.email;
  if (typeof email === "string") await clear(emailKey(email));
});

function createAuth() {
  return betterAuth({
    baseURL: baseUrl(),
    secret: env("BETTER_AUTH_SECRET"),
    trustedOrigins: trustedOrigins(),
    database: prismaAdapter(getDb(), { provider: "postgresql" }),
    emailAndPassword: {
      enabled: true,
      minPasswordLength: MIN_PASSWORD_LENGTH,
      maxPasswordLength: MAX_PASSWORD_LENGTH,
      autoSignIn: true,
      // One-time link (better-auth consumes the token on use), valid for an hour.
      resetPasswordTokenExpiresIn: 3600,
      // Whoever knew the old password is signed out everywhere.
      revokeSessionsOnPasswordReset: true,
      sendResetPassword: async ({ user, url }) => {
        await sendPasswordResetMail({ user: { id: user.id, email: user.email, name: user.name }, url });
      },
      onPasswordReset: async ({ user }) => {
        await revokeApiKeysOf(user.id);
      },
    },
    // The address is proven before Herald mails it anything it did not ask for
    // (notice emails, lib/settings/update-settings.ts); signing in never waits on it.
    emailVerification: {
      sendOnSignUp: true,
      autoSignInAfterVerification: false,
      sendVerificationEmail: async ({ user, url }) => {
        sendVerificationMail({ user: { id: user.id, email: user.email, name: user.name }, url });
      },
    },
    session: { cookieCache: { enabled: false } },
    // Throttles password guessing per client address: the address scripts/server.ts
    // derived from the socket (client-supplied address headers are dropped there).
    // Per process and in memory, as before; the per-email limit below is the one
    // that holds across processes and restarts.
    rateLimit: {
      enabled: authRateLimitEnabled(),
      window: 60,
      max: 100,
      customRules: { "/sign-in/email": { window: 60, max: 20 }, "/sign-up/email": { window: 60, max: 20 } },
    },
    advanced: { ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] } },
    hooks: { before: beforeHook, after: afterHook },
    databaseHooks: {
      user: {
        create: {
          // The signing-up browser's zone (sent beside the password by the sign-up form) is the
          // account's clock from its first reply on; anything Intl does not know leaves it unset (UTC).
          after: async (user, ctx) => {
            const zone = canonicalTimeZone((ctx?.body as { timeZone?: unknown } | undefined)?.timeZone);
            if (zone) await getDb().user.update({ where: { id: user.id }, data: { timeZone: zone } });
          },
        },
      },
      session: {
        delete: {
          // Open feeds of the account re-check their session now, not at their next heartbeat.
          after: async (session) => {
            await notifySessionEnded(session.userId).catch((err) =>
              log("auth").warn({ err }, "session-ended notify failed"),
            );
          },
        },
      },
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
  /** The session that authenticated this request; long-lived responses (the feed) re-check it. */
  sessionId: string;
}

export async function userFromHeaders(headers: Headers): Promise<SessionUser | null> {
  // One joined query for a live session; better-auth for everything else (./session-lookup.ts).
  const live = await liveSessionUser(headers, await getAuth().$context);
  if (live !== undefined) return live;
  const session = await getAuth().api.getSession({ headers });
  if (!session) return null;
  const { id, name, email } = session.user;
  return { id, name, email, sessionId: session.session.id };
}
