import type { Metadata } from "next";
import { ResetPasswordForm } from "@/components/password-reset-forms";

export const metadata: Metadata = { title: "Choose a new password" };

// better-auth's email link redirects here with ?token=… (or ?error=INVALID_TOKEN).
export default async function ResetPasswordPage({
  searchParams,
}: {
  searchParams: Promise<{ token?: string | string[]; error?: string }>;
}) {
  const { token, error } = await searchParams;
  return <ResetPasswordForm token={typeof token === "string" && !error ? token : null} />;
}
