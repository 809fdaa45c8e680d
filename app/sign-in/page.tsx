import type { Metadata } from "next";
import { AuthForm } from "@/components/auth-form";

export const metadata: Metadata = { title: "Sign in" };

// Deliberately reachable while signed in: signing in here switches accounts.
export default function SignInPage() {
  return <AuthForm mode="sign-in" />;
}
