import { route } from "@/lib/http/route";
import { notFound } from "@/lib/errors/api-error";
import { idParams } from "@/lib/contract/schemas";
import { getTaskDetail } from "@/lib/tasks/queries";

export const dynamic = "force-dynamic";

export const GET = route({ params: idParams }, async ({ user, params }) => {
  const task = await getTaskDetail(user.id, params.id);
  if (!task) throw notFound("Task");
  return { task };
});
