import { keyRoute } from "@/lib/http/route";
import { getAssistant } from "@/lib/agent-protocol/assistants";
import { apAssistantParams } from "@/lib/contract/ap";

export const dynamic = "force-dynamic";

export const GET = keyRoute({ params: apAssistantParams }, async ({ params }) => getAssistant(params.id));
