import { keyRoute } from "@/lib/http/route";
import { searchAssistants } from "@/lib/agent-protocol/assistants";
import { apAssistantSearchBody } from "@/lib/contract/ap";

export const dynamic = "force-dynamic";

export const POST = keyRoute({ body: apAssistantSearchBody }, async ({ body }) =>
  searchAssistants({
    graph_id: body.graph_id ?? undefined,
    name: body.name ?? undefined,
    metadata: body.metadata ?? undefined,
    limit: body.limit,
    offset: body.offset,
  }),
);
