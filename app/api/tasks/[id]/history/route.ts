import { route } from "@/lib/http/route";
import { notFound } from "@/lib/errors/api-error";
import { idParams } from "@/lib/contract/schemas";
import { historyQuery } from "@/lib/contract/history";
import { getTaskHistory } from "@/lib/tasks/history";

export const dynamic = "force-dynamic";

export const GET = route({ params: idParams, query: historyQuery }, async ({ user, params, query }) => {
  const page = await getTaskHistory(user.id, params.id, query);
  if (!page) throw notFound("Task");
  return page;
});
