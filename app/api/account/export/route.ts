import { json, route } from "@/lib/http/route";
import { exportAccount } from "@/lib/commands/export-account";

export const dynamic = "force-dynamic";

/** The account's data as a JSON download (docs/api.md#account). */
export const GET = route({}, async ({ user }) =>
  json(await exportAccount(user.id), 200, { "content-disposition": 'attachment; filename="herald-export.json"' }),
);
