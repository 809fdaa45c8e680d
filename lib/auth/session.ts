import { cache } from "react";
import { headers } from "next/headers";
import { userFromHeaders, type SessionUser } from "./auth";

/**
 * For server components: the signed-in user of the current request, or null.
 * Cached per request: the root layout (account language) and the page both ask.
 */
export const getSessionUser = cache(async (): Promise<SessionUser | null> => userFromHeaders(await headers()));
