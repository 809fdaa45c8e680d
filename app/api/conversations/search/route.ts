import { route } from "@/lib/http/route";
import { searchConversationsQuery } from "@/lib/contract/schemas";
import { searchConversations } from "@/lib/chat/search";

export const dynamic = "force-dynamic";

export const GET = route({ query: searchConversationsQuery }, async ({ user, query }) => ({
  results: await searchConversations(user.id, query.q, query.limit),
}));
