import { keyRoute } from "@/lib/http/route";
import { getAssistantSchemas } from "@/lib/agent-protocol/assistants";
import { apAssistantParams } from "@/lib/contract/ap";

export const dynamic = "force-dynamic";

export const GET = keyRoute({ params: apAssistantParams }, async ({ params }) => getAssistantSchemas(params.id));
