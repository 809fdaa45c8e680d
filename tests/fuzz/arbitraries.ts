import fc from "fast-check";

// Generators shared by the API fuzz suite: the nasty inputs a client (or an
// attacker) can put in a string, a header, a query or a body.

const envInt = (name: string, fallback: number): number => {
  const raw = process.env[name];
  const n = raw === undefined || raw === "" ? NaN : Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : fallback;
};

/**
 * `HERALD_FUZZ_RUNS` / `HERALD_FUZZ_SEED`: a small fixed-seed profile in `npm test`; `npm run fuzz` runs a long
 * one with a fresh seed (`random`), printed so a failure can be replayed with HERALD_FUZZ_SEED=<seed>.
 */
const seed =
  process.env.HERALD_FUZZ_SEED === "random"
    ? Math.floor(Math.random() * 2 ** 31)
    : envInt("HERALD_FUZZ_SEED", 20261130);
export const FUZZ = { seed, numRuns: envInt("HERALD_FUZZ_RUNS", 20) };
if (process.env.HERALD_FUZZ_SEED) console.log(`[fuzz] seed ${FUZZ.seed}, ${FUZZ.numRuns} runs per property`);

/** Time for one property at the configured profile (shrinking included). */
export const fuzzTimeout = (perRunMs: number) => 60_000 + FUZZ.numRuns * perRunMs;

/** Strings the database cannot hold (NUL, unpaired surrogates), alone or inside ordinary text. */
export const unstorable: fc.Arbitrary<string> = fc
  .tuple(
    fc.string({ maxLength: 8 }),
    fc.constantFrom("\u0000", "\ud800", "\udbff", "\udc00", "\udfff", "\udc00\ud800"),
    fc.string({ maxLength: 8 }),
  )
  .map(([a, bad, b]) => a + bad + b);

/** Text a user may legitimately send: RTL, emoji, combining marks, CJK, zero-width. */
export const fancyText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }),
  fc.constantFrom(
    "\u202eolleh\u202c",
    "مرحبا بالعالم",
    "שלום",
    "👩‍👩‍👧‍👦🏳️‍🌈",
    "e\u0301\u0301\u0301",
    "十分钟后告诉我",
    "tell me in 10 minutes",
    "\u200b\u200d",
    "Z̷͉̈a̶̠͝l̴̰̓g̸̱̈o̴̤͑",
  ),
);

/** Anything at all a string field may carry, valid or not. */
export const anyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string() },
  { weight: 3, arbitrary: fancyText },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
  { weight: 2, arbitrary: unstorable },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "",
      " ",
      "\t\n",
      "null",
      "undefined",
      "[object Object]",
      "%00",
      "../../etc/passwd",
      "' OR 1=1 --",
      "$where",
      "__proto__",
      "constructor",
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 4_000, max: 20_000 }).map((n) => "x".repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 5_000 }).map((n) => "💩".repeat(n)) },
);

/** Values of the wrong JSON type for a string field (none containing strings, so the fault stays at the field). */
export const notAString: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom("a", "b"), fc.integer(), { maxKeys: 2 }),
);

/** Query-string values for integer parameters, mostly malformed or out of range. */
export const intish: fc.Arbitrary<string> = fc.oneof(
  fc.nat({ max: 600 }).map(String),
  fc.integer().map(String),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.double().map(String),
  fc.constantFrom(
    "",
    "-0",
    "+1",
    " 1",
    "1 ",
    "0x10",
    "1e3",
    "1e30",
    "9".repeat(40),
    "2147483647",
    "2147483648",
    "NaN",
    "Infinity",
    "1.5",
    "01",
    "1,2",
    "١٢٣",
    "%00",
  ),
  anyString,
);

/** A header value the Fetch API lets through (no NUL/CR/LF, Latin-1 only). */
export const headerValue: fc.Arbitrary<string> = fc
  .string({ unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 60 })
  .filter((s) => s.trim() === s);

export const contentTypes = [
  "application/json",
  "application/json; charset=utf-8",
  "application/merge-patch+json",
  "text/plain",
  "text/plain;charset=UTF-8",
  "multipart/form-data; boundary=----x",
  "application/x-www-form-urlencoded",
  "application/xml",
  "application/jsonp",
  "",
] as const;

/** Raw bodies a client should not send: malformed, non-objects, deeply nested, prototype keys. */
export const oddBody: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: "binary", maxLength: 80 }),
  fc
    .jsonValue({ maxDepth: 3, stringUnit: "binary" })
    .filter((v) => typeof v !== "object" || v === null || Array.isArray(v))
    .map((v) => JSON.stringify(v)),
  fc.constantFrom(
    "{",
    "}",
    "{]",
    '{"a":}',
    "[",
    "nul",
    "{'a':1}",
    '{"a":1,}',
    "\ufeff{}",
    "{}garbage",
    '{"__proto__":{"polluted":1}}',
  ),
  fc.integer({ min: 1_000, max: 60_000 }).map((n) => "[".repeat(n) + "]".repeat(n)),
  fc.integer({ min: 1_000, max: 20_000 }).map((n) => '{"a":'.repeat(n) + "1" + "}".repeat(n)),
);
