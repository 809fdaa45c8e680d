import { route } from "@/lib/http/route";
import { idParams, updateTaskBody } from "@/lib/contract/schemas";
import { updateTask } from "@/lib/tasks/update-task";

export const dynamic = "force-dynamic";

export const POST = route({ params: idParams, body: updateTaskBody }, async ({ user, params, body }) => ({
  task: await updateTask(user.id, params.id, body.message),
}));
