import { route } from "@/lib/http/route";
import { answerInputBody, idParams } from "@/lib/contract/schemas";
import { answerInput } from "@/lib/tasks/answer-input";

export const dynamic = "force-dynamic";

export const POST = route({ params: idParams, body: answerInputBody }, async ({ user, params, body }) => ({
  task: await answerInput(user.id, params.id, body.response),
}));
