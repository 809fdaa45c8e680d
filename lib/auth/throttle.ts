// Sign-in throttling state, in Postgres so every web process (and a restart) sees
// the same counts: password attempts per email address ("email|<sha-256>"), counted
// before the password is checked and cleared by a success, so neither a changing
// client address nor parallel requests get more guesses at one account.
// `consume` has the shape of better-auth's rate-limit `customStorage`, so its
// per-address buckets could live here too.
//
// A bucket is a fixed window: the first hit starts it, hits past `max` inside it are
// refused until `windowStart + window` (DB clock), then the next hit starts a new one.

import { createHash } from "node:crypto";
import { deleteBucket, hitBucket, pruneBuckets } from "./sql";

export interface ThrottleRule {
  /** Seconds. */
  window: number;
  max: number;
}

export interface ThrottleResult {
  allowed: boolean;
  /** Seconds until a refused key may try again; null when allowed. */
  retryAfter: number | null;
}

/** Failed (or in-flight) password sign-ins per email address, whatever the client address. */
export const EMAIL_SIGN_IN_RULE: ThrottleRule = { window: 15 * 60, max: 10 };

// Rows whose window ended this long ago are dead for every rule we use.
const PRUNE_AFTER_SECONDS = 24 * 60 * 60;
const PRUNE_BATCH = 100;

/** One atomic hit on a bucket (an upsert under the row lock: concurrent hits cannot overshoot). */
export async function consume(key: string, rule: ThrottleRule): Promise<ThrottleResult> {
  const row = await hitBucket(key, rule);
  if (row.hits === 1) await prune();
  return row.hits <= rule.max ? { allowed: true, retryAfter: null } : { allowed: false, retryAfter: row.retryAfter };
}

export async function clear(key: string): Promise<void> {
  await deleteBucket(key);
}

/** Each new window removes a few long-dead rows, so the table stays the size of recent activity. */
async function prune(): Promise<void> {
  await pruneBuckets(PRUNE_AFTER_SECONDS, PRUNE_BATCH);
}

/** Addresses are case-insensitive in practice; hashed so the table holds no addresses of non-users. */
export function emailKey(email: string): string {
  return `email|${createHash("sha256").update(email.trim().toLowerCase()).digest("hex")}`;
}
