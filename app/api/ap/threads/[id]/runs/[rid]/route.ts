import { keyRoute } from "@/lib/api/route";
import { getRun } from "@/lib/ap/get-run";
import { apRunParams } from "@/lib/contract/ap";

export const dynamic = "force-dynamic";

export const GET = keyRoute({ params: apRunParams }, async ({ user, params }) => getRun(user.id, params.id, params.rid));
