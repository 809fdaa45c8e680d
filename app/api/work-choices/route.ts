import { route } from "@/lib/http/route";
import { workChoices } from "@/lib/drivers/choices";

export const dynamic = "force-dynamic";

/** The composer's "Work with" picker: opaque ids and the operator's public labels only (docs/api.md#work-choices). */
export const GET = route({}, async () => ({ choices: workChoices() }));
