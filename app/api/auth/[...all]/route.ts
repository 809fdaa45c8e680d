import { handleAuthRequest } from "@/lib/auth/handler";
import { setPasswordResetMailer } from "@/lib/auth/reset-mail";
import { setVerificationMailer } from "@/lib/auth/verify-mail";
import { sendPasswordResetEmail } from "@/lib/commands/send-password-reset";
import { sendVerificationEmail } from "@/lib/commands/send-verification-email";

export const dynamic = "force-dynamic";

// lib/auth cannot import the email transport (layers); the senders are handed in here.
setPasswordResetMailer(sendPasswordResetEmail);
setVerificationMailer(sendVerificationEmail);

export const GET = (req: Request) => handleAuthRequest(req);
export const POST = (req: Request) => handleAuthRequest(req);
