import { route } from "@/lib/api/route";
import { ApiError, notFound } from "@/lib/api/errors";
import { answerInputBody, idParams } from "@/lib/api/schemas";
import { getDb } from "@/lib/db/client";

export const dynamic = "force-dynamic";

// Only remote drivers ask for input; the native research driver never does, so
// an answer can only be refused here until a driver that asks is configured.
export const POST = route({ params: idParams, body: answerInputBody }, async ({ user, params }) => {
  const task = await getDb().task.findFirst({ where: { id: params.id, ownerId: user.id }, select: { status: true } });
  if (!task) throw notFound("Task");
  throw new ApiError("conflict", `The task is ${task.status}, not waiting for input`);
});
