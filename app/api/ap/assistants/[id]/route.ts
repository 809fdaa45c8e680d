import { keyRoute } from "@/lib/api/route";
import { getAssistant } from "@/lib/ap/assistants";
import { apAssistantParams } from "@/lib/contract/ap";

export const dynamic = "force-dynamic";

export const GET = keyRoute({ params: apAssistantParams }, async ({ params }) => getAssistant(params.id));
