import { keyRoute } from "@/lib/api/route";
import { getAssistantSchemas } from "@/lib/ap/assistants";
import { apAssistantParams } from "@/lib/contract/ap";

export const dynamic = "force-dynamic";

export const GET = keyRoute({ params: apAssistantParams }, async ({ params }) => getAssistantSchemas(params.id));
