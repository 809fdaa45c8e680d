import { z } from "zod";

/**
 * Every environment variable Herald reads, parsed and checked here and nowhere
 * else. Values are read at call time (tests and `HERALD_LIMITS=off` benches
 * change them without reloading modules); `checkEnv()` validates them all once
 * at process start so a typo fails loudly, naming the variable, instead of
 * becoming NaN deep inside a loop. docs/operations.md lists the same names (a
 * test keeps the two in step).
 */

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const positiveMs = (fallback: number) =>
  z.coerce
    .number()
    .positive()
    .max(7 * 24 * 3600 * 1000)
    .default(fallback);
const nonNegativeMs = (fallback: number) =>
  z.coerce
    .number()
    .min(0)
    .max(24 * 3600 * 1000)
    .default(fallback);
// Switches accept the usual spellings (on/off, true/false, yes/no, 1/0): a start must not fail on "HERALD_LIMITS=false".
const TRUTHY = new Set(["1", "true", "yes", "on"]);
const FALSY = new Set(["0", "false", "no", "off"]);
const spelled = (on: string, off: string) => (v: unknown) => {
  if (typeof v !== "string") return v;
  const t = v.toLowerCase();
  return TRUTHY.has(t) ? on : FALSY.has(t) ? off : v;
};
const onOff = z.preprocess(spelled("on", "off"), z.enum(["on", "off"]).default("on"));
const zeroOne = z.preprocess(spelled("1", "0"), z.enum(["0", "1"]).default("0"));
/** HERALD_MODEL_PRICES: model id → USD per million input/output tokens (read by lib/agent/usage.ts). */
export const PRICE_TABLE = z.record(
  z.string().min(1),
  z.object({ input: z.number().min(0), output: z.number().min(0) }).strict(),
);
function priceTableValid(v: string): boolean {
  try {
    return PRICE_TABLE.safeParse(JSON.parse(v)).success;
  } catch {
    return false;
  }
}

export const ENV_SCHEMA = z.object({
  // ---- where things are
  DATABASE_URL: z
    .string()
    .min(1)
    .optional()
    .describe("External PostgreSQL; unset = the embedded cluster in HERALD_DATA_DIR"),
  DATABASE_DIRECT_URL: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Direct PostgreSQL connection for LISTEN and migrations when DATABASE_URL is a transaction-mode pooler (setting it turns on pooler mode)",
    ),
  HERALD_DATA_DIR: z.string().min(1).optional().describe("Embedded database, auth secret and logs; default ./.data"),
  HOST: z.string().min(1).default("127.0.0.1").describe("Listen address of the web server"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000).describe("Listen port of the web server"),
  BETTER_AUTH_URL: z.url().optional().describe("Public origin of the app; default http://localhost:PORT"),
  BETTER_AUTH_SECRET: z
    .string()
    .min(1)
    .optional()
    .describe("Session signing secret; npm start generates one into the data dir"),
  HERALD_TRUSTED_ORIGINS: z.string().default("").describe("Extra origins allowed to post (comma-separated)"),
  HERALD_TRUSTED_PROXIES: z
    .string()
    .default("")
    .describe("Proxies whose X-Forwarded-For is believed (IPs/CIDRs, comma-separated)"),
  HERALD_DB_POOL_SIZE: positiveInt(10).describe("Connections per process"),
  HERALD_STATEMENT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(20_000)
    .describe(
      "A statement on a pool connection running longer is cancelled (57014); 0 = none. Behind a pooler set it on the role instead (docs/operations.md#connection-poolers)",
    ),

  // ---- models and remote agents
  OPENAI_BASE_URL: z.url().optional().describe("OpenAI-compatible endpoint; unset = the built-in offline model"),
  OPENAI_API_KEY: z.string().optional().describe("Key for OPENAI_BASE_URL"),
  HERALD_MODEL: z.string().min(1).default("gpt-4o-mini").describe("Model id at OPENAI_BASE_URL"),
  HERALD_MODEL_PROVIDER: z
    .enum(["openai", "ollama", "vllm", "llamacpp", "openai-compatible"])
    .optional()
    .describe(
      "Profile of the model endpoint (default base URL, features it accepts); unset = openai for api.openai.com or no URL, else openai-compatible",
    ),
  HERALD_MODEL_TOOLS: onOff.describe(
    "off = never offer tools (a server without a tool-call parser); chat only, no background tasks from chat",
  ),
  HERALD_MODEL_TIMEOUT_MS: positiveMs(60_000).describe(
    "A streamed model request (chat, narration) whose headers or next chunk take longer is cut and retried",
  ),
  HERALD_MODEL_ANSWER_TIMEOUT_MS: positiveMs(300_000).describe(
    "A non-streamed model request (research steps) whose whole answer takes longer is cut and retried",
  ),
  HERALD_MODEL_RETRY_INTERACTIVE_MS: nonNegativeMs(30_000).describe(
    "Chat turns and narration: retries of a failing model provider stop this long after the first try",
  ),
  HERALD_MODEL_RETRY_BACKGROUND_MS: positiveMs(1_800_000).describe(
    "Research steps: how long a task waits for a failing model provider before it fails",
  ),
  HERALD_MODEL_PRICES: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || priceTableValid(v),
      "a JSON object of model id → {input, output} USD per million tokens",
    )
    .describe(
      'Optional price table for cost estimates (JSON: {"model-id": {"input": 0.15, "output": 0.6}}, USD per million tokens, "*" = any model)',
    ),
  HERALD_MCP_SERVERS: z.string().optional().describe("MCP Tasks servers (JSON, see docs/operations.md)"),
  HERALD_REMOTE_AGENTS: z
    .string()
    .optional()
    .describe("Agent Protocol (LangGraph) remote agents: JSON, or a path to a JSON file (see docs/operations.md)"),
  HERALD_ORPHAN_REAP_MS: positiveMs(60_000).describe(
    "How often each worker asks remotes that list their tasks (MCP tasks/list) for untracked ones",
  ),
  HERALD_ORPHAN_GRACE_MS: nonNegativeMs(120_000).describe(
    "An untracked remote task is cancelled once it stayed untracked this long",
  ),
  HERALD_TEST_AGENT_PAUSE_AFTER_CREATE_MS: nonNegativeMs(0).describe(
    "Tests only: hold after a remote agent run or MCP task was created, before its handle is stored",
  ),
  HERALD_OFFLINE_CHUNK_MS: nonNegativeMs(12).describe("Offline model: delay between streamed chunks"),

  // ---- web research (lib/research)
  HERALD_SEARCH_PROVIDER: z
    .enum(["wikipedia", "searxng", "tavily", "brave", "none"])
    .default("wikipedia")
    .describe("Web search for research tasks; wikipedia needs no key"),
  HERALD_SEARCH_URL: z
    .url()
    .optional()
    .describe("Base URL of the search provider (required for searxng; proxies, tests); trusted like SMTP_URL"),
  TAVILY_API_KEY: z.string().min(1).optional().describe("Key for HERALD_SEARCH_PROVIDER=tavily"),
  BRAVE_SEARCH_API_KEY: z.string().min(1).optional().describe("Key for HERALD_SEARCH_PROVIDER=brave"),
  HERALD_RESEARCH_MAX_SOURCES: z.coerce
    .number()
    .int()
    .min(0)
    .max(200)
    .default(20)
    .describe("Pages one research task may read"),
  HERALD_RESEARCH_MAX_SEARCHES: z.coerce
    .number()
    .int()
    .min(0)
    .max(200)
    .default(20)
    .describe("Web searches one research task may make"),
  HERALD_FETCH_ALLOW_PRIVATE: zeroOne.describe(
    "1 lets page fetches reach loopback, private, link-local and metadata addresses (tests, intranets)",
  ),

  // ---- workers and loops
  HERALD_WORKER_CONCURRENCY: positiveInt(4).describe("Slots per loop per worker process"),
  HERALD_WORKERS: positiveInt(1).describe("Worker processes `npm start` runs (`--workers N` wins)"),
  HERALD_NOTIFY_CONCURRENCY: positiveInt(4).describe("Slots of the notification loop per worker"),
  HERALD_AP_WEBHOOK_ATTEMPTS: positiveInt(10).describe(
    "Deliveries of an Agent Protocol run's webhook before it is a dead letter",
  ),
  HERALD_AP_WEBHOOK_BACKOFF_MS: positiveMs(5_000).describe(
    "First wait between webhook deliveries; doubles each time (jittered, at most an hour)",
  ),
  HERALD_AP_WEBHOOK_TIMEOUT_MS: positiveMs(10_000).describe(
    "How long one webhook delivery may take before it counts as failed",
  ),
  HERALD_POLL_MS: positiveMs(2_000).describe("Fallback poll of every loop (NOTIFY wakes them sooner)"),
  HERALD_DUE_POLL_MS: positiveMs(30_000).describe("Fallback poll of the due loop"),
  HERALD_HEARTBEAT_MS: positiveMs(5_000).describe("Worker heartbeat interval"),
  HERALD_HEARTBEAT_STALE_MS: positiveMs(15_000).describe("A worker silent this long counts as dead"),
  HERALD_TASK_LEASE_MS: positiveMs(15_000).describe("Task execution and cancel lease"),
  HERALD_TASK_RETRY_MS: positiveMs(2_000).describe("First retry delay of a failed step (doubles)"),
  HERALD_TASK_RETRY_CAP_MS: positiveMs(300_000).describe("Longest retry delay of a failed step"),
  HERALD_RUN_LEASE_MS: positiveMs(30_000).describe("Chat and narration run lease"),
  HERALD_RUN_MAX_ATTEMPTS: positiveInt(3).describe("Attempts of a run before it fails"),
  HERALD_NOTIFY_INTERVAL_MS: positiveMs(2_000).describe("Re-check interval of a dispatched notification"),
  HERALD_NOTIFY_MAX_BACKOFF_MS: positiveMs(300_000).describe("Longest notification retry delay"),
  HERALD_NOTIFY_LEASE_MS: positiveMs(60_000).describe("Notification lease"),
  HERALD_NARRATION: onOff.describe("off = notices only, no narration turn"),
  HERALD_RESEARCH_STEPS: z.coerce
    .number()
    .int()
    .min(1)
    .max(50)
    .default(4)
    .describe("Sections of a native research task"),
  HERALD_RESEARCH_STEP_MS: z.coerce
    .number()
    .min(0)
    .max(60_000)
    .default(1_500)
    .describe("Pacing between research sections (holds no worker slot)"),
  HERALD_EVENT_RETENTION_DAYS: positiveInt(30).describe("Feed events older than this are deleted by the retention job"),

  // ---- email (lib/email)
  SMTP_URL: z
    .string()
    .min(1)
    .optional()
    .describe("SMTP server for notice emails (smtp://user:pass@host:587, smtps://…); unset = email off"),
  HERALD_EMAIL_FROM: z.string().min(1).default("Herald <herald@localhost>").describe("From address of notice emails"),
  HERALD_EMAIL_AWAY_SECONDS: positiveInt(300).describe(
    "No tab of the account open this long before a notice is emailed",
  ),
  HERALD_TEST_EMAIL_PAUSE_AFTER_SEND_MS: nonNegativeMs(0).describe(
    "Tests only: hold after the SMTP server accepted, before recording it",
  ),

  // ---- feed
  HERALD_FEED_BUFFER_BYTES: positiveInt(1_000_000).describe(
    "A slower feed client is dropped past this much unsent data",
  ),
  HERALD_FEED_HEARTBEAT_MS: positiveMs(15_000).describe("Feed heartbeat; sessions are re-checked at least this often"),
  HERALD_MAX_FEEDS_PER_ACCOUNT: positiveInt(20).describe(
    "Open feeds per account per web process (the oldest is closed)",
  ),

  // ---- limits and abuse resistance
  HERALD_LIMITS: onOff.describe("off lifts every per-account limit (benchmarks)"),
  HERALD_LIMIT_ACTIVE_TASKS: positiveInt(10).describe("Background tasks not yet finished, per account"),
  HERALD_LIMIT_TASK_STARTS_PER_MINUTE: positiveInt(30).describe("Task starts per rolling minute, per account"),
  HERALD_LIMIT_MESSAGES_PER_MINUTE: positiveInt(60).describe("Chat messages per rolling minute, per account"),
  HERALD_LIMIT_QUEUED_TURNS: positiveInt(10).describe("Chat turns waiting or running, per account"),
  HERALD_LIMIT_SLOTS_PER_LOOP: positiveInt(3).describe("Leases one account may hold at once in each loop"),
  HERALD_LIMIT_CONVERSATIONS_PER_MINUTE: positiveInt(20).describe(
    "Conversations (Agent Protocol threads included) created per rolling minute, per account",
  ),
  HERALD_LIMIT_CONVERSATIONS: positiveInt(10_000).describe("Conversations not deleted (threads included), per account"),
  HERALD_LIMIT_PAGES_PER_HOUR: positiveInt(300).describe(
    "Web pages research tasks read per rolling hour, per account (each task also stops at HERALD_RESEARCH_MAX_SOURCES)",
  ),
  HERALD_LIMIT_SEARCHES_PER_MINUTE: positiveInt(60).describe("Conversation searches per minute, per account"),
  HERALD_ALLOW_SIMULATE: zeroOne.describe("1 accepts options.simulate (tests and benchmarks)"),
  HERALD_AUTH_RATE_LIMIT: onOff.describe("off lifts sign-in/sign-up throttling (test suites)"),
  HERALD_METRICS_TOKEN: z.string().min(1).optional().describe("Bearer token for /api/metrics; unset = endpoint off"),

  // ---- operations (docs/operations.md#logs, #retention)
  HERALD_LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .default("info")
    .describe("Lowest level logged (JSON lines; formatted when stdout is a terminal)"),
  HERALD_RETENTION_INTERVAL_MS: positiveMs(60 * 60_000).describe(
    "How often one worker of the fleet runs the retention job",
  ),

  // ---- tooling
  HERALD_DEBUG_MIGRATE: z.string().optional().describe("Set: print the schema engine's diagnostics"),
});

export type Env = z.output<typeof ENV_SCHEMA>;
export type EnvName = keyof Env;

/** "" counts as unset: `FOO= npm start` should mean the default, not an error. */
function raw(name: string): string | undefined {
  const v = process.env[name];
  return v === undefined || v.trim() === "" ? undefined : v.trim();
}

export class EnvError extends Error {}

// The last parse of each variable, kept while its raw value stays the same: the loops read
// their settings on every pass, and a zod parse each time was measurable in a busy worker.
const parsed = new Map<EnvName, { raw: string | undefined; value: unknown }>();

/** One variable, parsed; throws EnvError naming it on a bad value. */
export function env<K extends EnvName>(name: K): Env[K] {
  const value = raw(name);
  const last = parsed.get(name);
  if (last && last.raw === value) return last.value as Env[K];
  const result = ENV_SCHEMA.shape[name].safeParse(value);
  if (!result.success) {
    throw new EnvError(`${name}=${JSON.stringify(process.env[name])}: ${result.error.issues[0]?.message ?? "invalid"}`);
  }
  parsed.set(name, { raw: value, value: result.data });
  return result.data as Env[K];
}

/** Every variable at once, for process start; lists every bad one. */
export function checkEnv(): void {
  const bad: string[] = [];
  for (const name of Object.keys(ENV_SCHEMA.shape) as EnvName[]) {
    try {
      env(name);
    } catch (err) {
      bad.push((err as Error).message);
    }
  }
  if (bad.length) throw new EnvError(`invalid configuration:\n  ${bad.join("\n  ")}`);
}
