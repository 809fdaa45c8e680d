import { json, route } from "@/lib/http/route";
import { idParams } from "@/lib/contract/schemas";
import { createShare } from "@/lib/share/create-share";
import { listShares } from "@/lib/share/list-shares";

export const dynamic = "force-dynamic";

export const GET = route({ params: idParams }, async ({ user, params }) => ({
  shares: await listShares(user.id, params.id),
}));

/** The token is in this answer only; the server keeps its hash. */
export const POST = route({ params: idParams }, async ({ user, params }) =>
  json(await createShare(user.id, params.id), 201),
);
