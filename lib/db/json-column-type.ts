import type { JsonValue } from "@prisma/client/runtime/client";
import type { ColumnType } from "kysely";

/** JSON text made by `jsonb()` (lib/db/kysely.ts): the only value a JSON column takes in a Kysely write. */
export type JsonText = string & { readonly __jsonText: true };

/**
 * A JSON column in the generated `DB` (prisma/schema.prisma's kysely generator): read as the parsed value, as Prisma
 * reads it, so a row of either client is a row of the other. Written only as `jsonb(v)`: pg would send a JS array
 * as a Postgres array literal, and a bigint inside would throw in JSON.stringify anyway.
 */
export type Json = ColumnType<JsonValue, JsonText, JsonText>;
