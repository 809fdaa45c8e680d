import { route } from "@/lib/http/route";
import { listWebhookDeliveries } from "@/lib/agent-protocol/list-webhooks";

export const dynamic = "force-dynamic";

/** The signed-in account's Agent Protocol webhook deliveries (Settings). */
export const GET = route({}, async ({ user }) => listWebhookDeliveries(user.id));
