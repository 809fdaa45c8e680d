import type { Metadata } from "next";
import { AuthForm } from "@/components/auth-form";
import { emailAvailable } from "@/lib/settings/queries";

export const metadata: Metadata = { title: "Sign in" };

// Deliberately reachable while signed in: signing in here switches accounts.
// `?next=/c/…`: the page that asked for a session (checked by safeNextPath in the form).
// `?signedOut=1`: another tab of this browser signed out (lib/client/session-sync.ts).
export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string | string[]; signedOut?: string }>;
}) {
  const { next, signedOut } = await searchParams;
  return (
    <AuthForm
      mode="sign-in"
      next={typeof next === "string" ? next : undefined}
      signedOutElsewhere={signedOut === "1"}
      resetByEmail={emailAvailable()}
    />
  );
}
