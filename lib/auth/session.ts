import { headers } from "next/headers";
import { userFromHeaders, type SessionUser } from "./auth";

/** For server components: the signed-in user of the current request, or null. */
export async function getSessionUser(): Promise<SessionUser | null> {
  return userFromHeaders(await headers());
}
