import { json, route } from "@/lib/http/route";
import { createKeyBody } from "@/lib/contract/keys";
import { createApiKey } from "@/lib/keys/create-api-key";
import { listApiKeys } from "@/lib/keys/list-api-keys";

export const dynamic = "force-dynamic";

export const GET = route({}, async ({ user }) => ({ keys: await listApiKeys(user.id) }));

/** The key is in this answer only; it is never shown again. */
export const POST = route({ body: createKeyBody }, async ({ req, user, body }) =>
  json(await createApiKey(req.headers, user.id, body), 201),
);
