import { errorResponse } from "@/lib/http/route";
import { ApiError } from "@/lib/errors/api-error";

export const dynamic = "force-dynamic";

// Any /api path no route claims: the JSON error contract instead of the HTML 404
// page. Every real route, /api/auth/* included, is a more specific match, so this
// only answers what would otherwise fall through. No session needed: it reveals
// nothing a signed-in caller would not get.
function unknownRoute(): Response {
  return errorResponse(new ApiError("not_found", "No such API route"));
}

export const GET = unknownRoute;
export const HEAD = unknownRoute;
export const POST = unknownRoute;
export const PUT = unknownRoute;
export const PATCH = unknownRoute;
export const DELETE = unknownRoute;
export const OPTIONS = unknownRoute;
