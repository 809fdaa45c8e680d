import { route } from "@/lib/http/route";
import { idParams } from "@/lib/contract/schemas";
import { revokeApiKey } from "@/lib/keys/revoke-api-key";

export const dynamic = "force-dynamic";

export const DELETE = route({ params: idParams }, async ({ user, params }) => {
  await revokeApiKey(user.id, params.id);
});
