/**
 * A circuit breaker per remote endpoint (a model, a search provider): after `threshold` retryable failures in
 * a row it opens and refuses calls without sending them; once its cooldown is
 * over it lets exactly one probe through (half-open), and that probe's answer
 * closes it or opens it again with a longer cooldown.
 *
 * Per process, not shared in Postgres, on purpose: the breaker only saves
 * requests, it decides nothing another process needs. What must survive a
 * crash (a task waiting for the provider, its next try) is already in the task
 * row. A shared breaker would add a database write to every model answer and
 * a cross-process lock on the probe, to save at most `threshold` requests per
 * worker process per outage.
 */

export type BreakerState = "closed" | "open" | "half_open";

export interface BreakerOptions {
  threshold?: number;
  /** First cooldown after opening; doubles on each failed probe up to `maxCooldownMs`. */
  cooldownMs?: number;
  maxCooldownMs?: number;
  now?: () => number;
}

export type Admission = { ok: true; probe: boolean } | { ok: false; retryInMs: number };

export class Breaker {
  private failures = 0;
  private openedUntil = 0;
  private cooldown: number;
  private probing = false;
  readonly threshold: number;
  private readonly baseCooldown: number;
  private readonly maxCooldown: number;
  private readonly now: () => number;

  constructor(opts: BreakerOptions = {}) {
    this.threshold = opts.threshold ?? 5;
    this.baseCooldown = opts.cooldownMs ?? 5_000;
    this.maxCooldown = opts.maxCooldownMs ?? 60_000;
    this.cooldown = this.baseCooldown;
    this.now = opts.now ?? Date.now;
  }

  get state(): BreakerState {
    if (this.failures < this.threshold) return "closed";
    return this.now() >= this.openedUntil ? "half_open" : "open";
  }

  /** May a request go out now? A granted probe must be answered with `success` or `failure`. */
  admit(): Admission {
    const state = this.state;
    if (state === "closed") return { ok: true, probe: false };
    if (state === "open") return { ok: false, retryInMs: this.openedUntil - this.now() };
    if (this.probing) return { ok: false, retryInMs: Math.min(this.baseCooldown, 1_000) };
    this.probing = true;
    return { ok: true, probe: true };
  }

  success(): void {
    this.failures = 0;
    this.probing = false;
    this.cooldown = this.baseCooldown;
  }

  /** A retryable failure; `retryAfterMs` (the provider's word) stretches the cooldown, never shortens it. */
  failure(retryAfterMs: number | null = null): void {
    const wasProbe = this.probing;
    this.probing = false;
    this.failures++;
    if (this.failures < this.threshold) return;
    if (wasProbe) this.cooldown = Math.min(this.maxCooldown, this.cooldown * 2);
    this.openedUntil = this.now() + Math.max(this.cooldown, retryAfterMs ?? 0);
  }

  /** A probe that ended without a verdict (refused input, caller aborted): let the next one try. */
  release(): void {
    this.probing = false;
  }
}

const breakers = new Map<string, Breaker>();

/** This process's breaker for an endpoint (`provider:model` for models, `search:provider` for searches). */
export function breakerFor(key: string): Breaker {
  let b = breakers.get(key);
  if (!b) breakers.set(key, (b = new Breaker()));
  return b;
}

/** Forgets every endpoint's state (tests that run one outage after another in one process). */
export function resetBreakers(): void {
  breakers.clear();
}
