import type { Metadata } from "next";
import { AuthForm } from "@/components/auth-form";

export const metadata: Metadata = { title: "Sign in" };

// Deliberately reachable while signed in: signing in here switches accounts.
// `?next=/c/…`: the page that asked for a session (checked by safeNextPath in the form).
export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const { next } = await searchParams;
  return <AuthForm mode="sign-in" next={typeof next === "string" ? next : undefined} />;
}
