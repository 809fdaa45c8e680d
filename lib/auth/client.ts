import { createAuthClient } from "better-auth/react";

// Same origin as the page in the browser, whatever host name the user typed
// (localhost vs 127.0.0.1): cookies and better-auth's Origin check both depend on it.
export const authClient = createAuthClient({
  baseURL: typeof window === "undefined" ? undefined : window.location.origin,
});
