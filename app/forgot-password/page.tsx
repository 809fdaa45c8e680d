import type { Metadata } from "next";
import { ForgotPasswordForm } from "@/components/password-reset-forms";
import { emailAvailable } from "@/lib/settings/queries";

export const metadata: Metadata = { title: "Reset password" };
// SMTP_URL is read per request: the page says so when the server cannot send email.
export const dynamic = "force-dynamic";

export default function ForgotPasswordPage() {
  return <ForgotPasswordForm emailAvailable={emailAvailable()} />;
}
