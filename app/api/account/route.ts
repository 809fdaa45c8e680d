import { z } from "zod";
import { route } from "@/lib/http/route";
import { deleteOwnAccount } from "@/lib/commands/delete-account";
import { MAX_PASSWORD_LENGTH } from "@/lib/contract/password";

export const dynamic = "force-dynamic";

const deleteAccountBody = z.strictObject({ password: z.string().min(1).max(MAX_PASSWORD_LENGTH) });

/** Deletes the signed-in account (docs/api.md#account): its tasks are cancelled and its data removed. */
export const DELETE = route({ body: deleteAccountBody }, async ({ req, user, body }) => {
  await deleteOwnAccount(req.headers, user.id, body.password);
  return new Response(null, { status: 204 });
});
