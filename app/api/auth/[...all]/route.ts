import { handleAuthRequest } from "@/lib/auth/handler";

export const dynamic = "force-dynamic";

export const GET = (req: Request) => handleAuthRequest(req);
export const POST = (req: Request) => handleAuthRequest(req);
