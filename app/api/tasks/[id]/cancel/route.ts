import { route } from "@/lib/http/route";
import { idParams } from "@/lib/contract/schemas";
import { requestCancel } from "@/lib/tasks/request-cancel";

export const dynamic = "force-dynamic";

export const POST = route({ params: idParams }, async ({ user, params }) => ({
  task: await requestCancel(user.id, params.id),
}));
