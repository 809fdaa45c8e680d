import { route } from "@/lib/http/route";
import { idParams } from "@/lib/contract/schemas";
import { revokeShare } from "@/lib/share/revoke-share";

export const dynamic = "force-dynamic";

export const DELETE = route({ params: idParams }, async ({ user, params }) => {
  await revokeShare(user.id, params.id);
});
