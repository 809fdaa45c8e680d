// The chaos audit's "recovery after each kill within lease + 1 s" (docs/development.md#chaos).
//
// The leases a SIGKILLed worker held are read right after its process exited: a dead
// process writes nothing, so every row still naming it as lease owner is exactly the
// work it held at the kill (no race with its own commits). A poller then reads those
// rows every POLL_MS until each lease token changed (another worker claimed the row,
// or another path — a cancel, the due loop's stop — closed it) or the row is terminal.
// The recovery time is that first observation minus the moment of the kill, so it
// overstates the truth by at most one poll interval plus one query.

import { sql, type RawBuilder } from "kysely";
import { TERMINAL_STATUSES } from "@/lib/contract/task";
import type { Executor } from "@/lib/db/kysely";
import { literals } from "@/lib/db/sql-list";

export const POLL_MS = 100;

type Kind = "task" | "cancel" | "run";

interface Held {
  kind: Kind;
  id: string;
  token: string;
  killAt: number;
  /** Task execution leases held by the other workers at the read. */
  busy: number;
  /** Other workers whose heartbeat (every 1 s) was fresh at the read. */
  beating: number;
  /** When the lease runs out, by this process's clock (read from the row at the kill). */
  expiresAt: number;
  owner: string;
  pid: number;
  /** The same two figures once the lease ran out: what decides whether a free slot could take it. */
  atExpiry?: Slots;
  recoveredMs?: number;
}

export interface RecoveryStats {
  /** Kills whose held leases were read. */
  kills: number;
  /** Task leases that ran out beyond the surviving workers' free execution slots (not judged). */
  slotsFull: number;
  slotsFullMaxMs: number | null;
  /** Leases of kills near a PostgreSQL outage (not judged): count and slowest take-up, ms. */
  nearOutage: number;
  nearOutageMaxMs: number | null;
  /** PostgreSQL outages as seen by the harness, ms. */
  outagesMs: number[];
  /** Kills whose read waited for a PostgreSQL outage: a lease re-claimed before the read is not counted. */
  killsReadLate: number;
  leases: number;
  p50Ms: number | null;
  maxMs: number | null;
  violations: string[];
}

interface Outage {
  from: number;
  to: number;
}

type Row = {
  kind: Kind;
  id: string;
  owner: string | null;
  token: string | null;
  status: string;
  msLeft: number | null;
};

interface Slots {
  busy: number;
  beating: number;
}

const msLeft = (col: string) => sql`(extract(epoch FROM ${sql.ref(col)} - now()) * 1000)::float8 AS "msLeft"`;

/** Task execution leases held by workers other than `owner`, and the other workers with a fresh heartbeat. */
const slotsSql = (owner: string, pid: number) =>
  sql<Slots>`SELECT (SELECT count(*)::int FROM "task" WHERE "leaseExpiresAt" > now() AND "leaseOwner" NOT LIKE ${owner}) AS busy,
    (SELECT count(*)::int FROM "worker_heartbeat" WHERE "lastBeatAt" > now() - interval '1.5 seconds'
       AND "stoppedAt" IS NULL AND pid <> ${pid}) AS beating`;

/** Every lease loop's rows in one shape: task execution, task cancel, chat and narration runs. */
function leases(where: { owner: string } | { ids: string[] } | "open"): RawBuilder<Row> {
  // A finished row may keep its owner's name; it holds nothing to recover.
  const open = sql`status NOT IN ${literals(TERMINAL_STATUSES)}`;
  const by = (ownerColumn: string) =>
    where === "open"
      ? open
      : "owner" in where
        ? sql`${sql.ref(ownerColumn)} LIKE ${where.owner} AND ${open}`
        : sql`id = ANY(${where.ids}::text[])`;
  return sql<Row>`
    SELECT 'task' AS kind, id, "leaseOwner" AS owner, "leaseToken" AS token, status, ${msLeft("leaseExpiresAt")} FROM "task" WHERE ${by("leaseOwner")}
    UNION ALL SELECT 'cancel', id, "cancelLeaseOwner", "cancelLeaseToken", status, ${msLeft("cancelLeaseExpiresAt")} FROM "task" WHERE ${by("cancelLeaseOwner")}
    UNION ALL SELECT 'run', id, "leaseOwner", "leaseToken", status, ${msLeft("leaseExpiresAt")} FROM "run" WHERE ${by("leaseOwner")}`;
}

/**
 * Whether a PostgreSQL outage overlaps [kill − lease, kill + lease + 1 s]. Such a kill is left out of the verdict
 * (its time is reported apart): the dead worker could not renew through the outage, and after one the survivors'
 * claim loops come back on their failure backoff (lib/fleet/loop.ts: up to 16 polls), not on the lease.
 */
export function nearOutage(killAt: number, leaseMs: number, outages: readonly Outage[]): boolean {
  return outages.some((o) => o.to > killAt - leaseMs && o.from < killAt + leaseMs + 1000);
}

/**
 * The task leases of one kill that had to wait for a survivor's step to end: with `free` slots when they ran out,
 * only that many could be taken up at once (a lease is never pre-empted). The fastest take-ups are the ones judged.
 */
export function beyondFreeSlots<T extends { recoveredMs?: number }>(leases: readonly T[], free: number): T[] {
  const byTakeUp = [...leases].sort((a, b) => (a.recoveredMs ?? Infinity) - (b.recoveredMs ?? Infinity));
  return byTakeUp.slice(Math.max(0, free));
}

export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

export class RecoveryAudit {
  private held: Held[] = [];
  private outages: Outage[] = [];
  private outageFrom: number | null = null;
  private reads: Promise<void>[] = [];
  private kills = 0;
  private killsReadLate = 0;
  private stopped = false;
  private poller: Promise<void>;

  constructor(
    private db: () => Executor,
    private leaseMs: number,
    private concurrency: number,
  ) {
    this.poller = this.poll();
  }

  /** Pids of the processes holding an open lease right now: the killer's preferred targets (tests/chaos/harness.ts). */
  async holders(): Promise<Set<number>> {
    const rows = await sql<{ pid: number }>`
      SELECT DISTINCT substring(l.owner FROM ':([0-9]+):[^:]*$')::int AS pid FROM (${leases("open")}) l
      WHERE l.owner IS NOT NULL AND l."msLeft" > 0`
      .execute(this.db())
      .then((r) => r.rows)
      .catch(() => []);
    return new Set(rows.map((r) => r.pid));
  }

  outageStarted(): void {
    this.outageFrom = Date.now();
  }

  outageEnded(): void {
    if (this.outageFrom !== null) this.outages.push({ from: this.outageFrom, to: Date.now() });
    this.outageFrom = null;
  }

  /** Call once the killed process has exited; reads its leases in the background (retrying through an outage). */
  killed(pid: number, killAt: number): void {
    this.kills++;
    const owner = `%:${pid}:%`;
    this.reads.push(
      (async () => {
        for (let tries = 0; ; tries++) {
          try {
            const readAt = Date.now();
            const { rows } = await leases({ owner }).execute(this.db());
            // The survivors' free execution slots: a lease is never pre-empted, so with none free the work waits for a
            // step to end or the replacement to boot, not for the lease.
            const [{ busy, beating }] = (await slotsSql(owner, pid).execute(this.db())).rows;
            if (tries > 0) this.killsReadLate++;
            for (const r of rows) {
              if (!r.token) continue;
              const expiresAt = readAt + Math.max(0, r.msLeft ?? 0);
              this.held.push({ kind: r.kind, id: r.id, token: r.token, killAt, busy, beating, expiresAt, owner, pid });
            }
            return;
          } catch {
            await new Promise((r) => setTimeout(r, POLL_MS));
          }
        }
      })(),
    );
  }

  private async poll(): Promise<void> {
    while (!this.stopped) {
      const open = this.held.filter((h) => h.recoveredMs === undefined);
      if (open.length) {
        const rows = await leases({ ids: [...new Set(open.map((h) => h.id))] })
          .execute(this.db())
          .then((r) => r.rows)
          .catch(() => null);
        const now = Date.now();
        for (const h of rows ? open : []) {
          const row = rows!.find((r) => r.kind === h.kind && r.id === h.id);
          if (!row || row.token !== h.token || (TERMINAL_STATUSES as readonly string[]).includes(row.status))
            h.recoveredMs = now - h.killAt;
        }
        // Free slots at the kill are often filled by queued work before the dead worker's lease runs out: whether a
        // survivor could take it up on expiry is read when it expires.
        const expired = open.filter(
          (h) => h.recoveredMs === undefined && h.atExpiry === undefined && h.expiresAt <= now,
        );
        for (const owner of new Set(expired.map((h) => h.owner))) {
          const of = expired.filter((h) => h.owner === owner);
          const slots = await slotsSql(owner, of[0].pid)
            .execute(this.db())
            .then((r) => r.rows)
            .catch(() => null);
          if (slots) for (const h of of) h.atExpiry = slots[0];
        }
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** Waits for the reads and for every held lease to be taken up (or `graceMs` past the last limit), then judges. */
  async finish(graceMs = 30_000): Promise<RecoveryStats> {
    await Promise.all(this.reads);
    const lastLimit = Math.max(0, ...this.held.map((h) => h.killAt + this.leaseMs + 1000));
    const giveUpAt = Math.max(Date.now(), lastLimit) + graceMs;
    while (this.held.some((h) => h.recoveredMs === undefined) && Date.now() < giveUpAt)
      await new Promise((r) => setTimeout(r, POLL_MS));
    this.stopped = true;
    await this.poller;
    const violations: string[] = [];
    const limit = this.leaseMs + 1000;
    const near = this.held.filter((h) => nearOutage(h.killAt, this.leaseMs, this.outages));
    const slotsOf = (h: Held) => h.atExpiry ?? { busy: h.busy, beating: h.beating };
    const kills = new Map<string, Held[]>();
    for (const h of this.held) {
      if (near.includes(h) || h.kind !== "task") continue;
      const key = `${h.owner}@${h.killAt}`;
      kills.set(key, [...(kills.get(key) ?? []), h]);
    }
    const full = [...kills.values()].flatMap((hs) =>
      beyondFreeSlots(hs, slotsOf(hs[0]).beating * this.concurrency - slotsOf(hs[0]).busy),
    );
    const judged = this.held.filter((h) => !near.includes(h) && !full.includes(h));
    for (const h of judged) {
      const since = this.outages.filter((o) => o.to <= h.killAt).map((o) => h.killAt - o.to);
      const tag = `${h.kind} lease ${h.id.slice(0, 8)} (at the kill: ${h.busy} task leases held, ${h.beating} workers beating; at expiry ${h.atExpiry ? `${h.atExpiry.busy} / ${h.atExpiry.beating}` : "not read"}${since.length ? `, ${Math.min(...since)} ms after an outage` : ""})`;
      if (h.recoveredMs === undefined) violations.push(`${tag}: not taken up after a worker kill`);
      else if (h.recoveredMs > limit)
        violations.push(`${tag}: taken up ${h.recoveredMs} ms after a worker kill (limit ${limit} ms)`);
    }
    for (const h of [...near, ...full])
      if (h.recoveredMs === undefined)
        violations.push(`${h.kind} lease ${h.id.slice(0, 8)}: not taken up after a worker kill`);
    const sorted = (hs: Held[]) =>
      hs.flatMap((h) => (h.recoveredMs === undefined ? [] : [h.recoveredMs])).sort((a, b) => a - b);
    const times = sorted(judged);
    const outagesMs = this.outages.map((o) => o.to - o.from);
    return {
      slotsFull: full.length,
      slotsFullMaxMs: percentile(sorted(full), 1),
      nearOutage: near.length,
      nearOutageMaxMs: percentile(sorted(near), 1),
      outagesMs,
      kills: this.kills,
      killsReadLate: this.killsReadLate,
      leases: judged.length,
      p50Ms: percentile(times, 0.5),
      maxMs: percentile(times, 1),
      violations,
    };
  }
}
