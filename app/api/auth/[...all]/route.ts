import { handleAuthRequest } from "@/lib/auth/handler";
import { setPasswordResetMailer } from "@/lib/auth/reset-mail";
import { sendPasswordResetEmail } from "@/lib/commands/send-password-reset";

export const dynamic = "force-dynamic";

// lib/auth cannot import the email transport (layers); the sender is handed in here.
setPasswordResetMailer(sendPasswordResetEmail);

export const GET = (req: Request) => handleAuthRequest(req);
export const POST = (req: Request) => handleAuthRequest(req);
