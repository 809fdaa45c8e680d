// LISTEN/NOTIFY channel names. NOTIFY inside a transaction is delivered at
// commit, so a listener never hears about a fact that might still roll back.
export const EVENTS_CHANNEL = "herald_events"; // payload: {"o": ownerId, "s": the last seq written}
export const DELTAS_CHANNEL = "herald_deltas"; // payload: RunDelta + ownerId, ephemeral
export const WORK_CHANNEL = "herald_work"; // payload: loop name; wakes idle workers
export const SESSIONS_CHANNEL = "herald_sessions"; // payload: {"o": userId}; a session of that account ended

// Postgres refuses NOTIFY payloads of 8000 bytes or more.
export const MAX_NOTIFY_BYTES = 7900;
