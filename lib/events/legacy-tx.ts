import type { SqlTx } from "@/lib/db/client";
import { isKysely, legacySql, type Executor } from "@/lib/db/kysely";
import type { EventTx } from "./emit";

/**
 * @deprecated Only while functions of other folders that these call (emitTaskUpdated, appendMessage, …) still take
 * a `SqlTx`: the handle to hand them. A transaction of transactionWithEvents is one already and is handed on as it
 * is, since its feed events are batched on that very object; a plain Kysely handle gets the old interface on the
 * same connection.
 */
export function asSqlTx(tx: Executor | SqlTx): SqlTx {
  if (!isKysely(tx)) return tx;
  return isEventTx(tx) ? tx : legacySql(tx);
}

const isEventTx = (tx: Executor): tx is EventTx => "$queryRaw" in tx;
