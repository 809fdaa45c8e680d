import pg from "pg";
import { databaseUrl } from "@/lib/db/client";
import { directDatabaseUrl } from "@/lib/db/urls";
import { log } from "@/lib/util/log";

type Handler = (channel: string, payload: string) => void;

/** How often readers re-check the database when there is no connection to LISTEN on. */
export const LISTEN_FALLBACK_POLL_MS = 1_000;
let warnedNoListen = false;

/**
 * One dedicated LISTEN connection per process, shared by everything in it (the
 * SSE hub in web processes, the wake-ups in workers). Reconnects with backoff
 * and jitter; after a reconnect `onReconnect` fires because notifications sent
 * while we were away are lost and readers must re-check the database.
 *
 * LISTEN holds one server connection for the whole session, so it goes to DATABASE_DIRECT_URL: through a
 * transaction-mode pooler it would listen on a connection other clients then use, and hear nothing. Behind a
 * pooler with no direct URL there is nothing to listen on: `onReconnect` then fires every
 * LISTEN_FALLBACK_POLL_MS instead, so feeds and loops still see every commit, only later, and run deltas
 * (ephemeral NOTIFYs) are not streamed.
 */
export class PgListener {
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private closed = false;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly channels: string[],
    private readonly onNotify: Handler,
    private readonly onReconnect: () => void = () => {},
    private readonly log: (msg: string) => void = () => {},
  ) {}

  start(): Promise<void> {
    this.connecting ??= this.connect();
    return this.connecting;
  }

  private poll(): void {
    if (!warnedNoListen) {
      warnedNoListen = true;
      log("db").warn(
        `DATABASE_URL is a transaction-mode pooler's and DATABASE_DIRECT_URL is not set: no LISTEN, so feeds and loops poll every ${LISTEN_FALLBACK_POLL_MS} ms ` +
          "and replies arrive whole instead of streamed; set DATABASE_DIRECT_URL (docs/operations.md#connection-poolers)",
      );
    }
    this.pollTimer = setInterval(() => this.onReconnect(), LISTEN_FALLBACK_POLL_MS);
    this.pollTimer.unref?.();
  }

  private async connect(): Promise<void> {
    // Read per connect, not once: tests and tools point DATABASE_URL elsewhere within a process.
    const url = directDatabaseUrl();
    if (url === undefined) {
      // Still checks the URL is set at all, as the pool would.
      databaseUrl();
      if (!this.closed && this.pollTimer === null) this.poll();
      return;
    }
    const client = new pg.Client({ connectionString: url });
    client.on("notification", (n) => this.onNotify(n.channel, n.payload ?? ""));
    client.on("error", (err) => this.lost(client, err));
    client.on("end", () => this.lost(client, new Error("connection ended")));
    try {
      await client.connect();
      for (const ch of this.channels) await client.query(`LISTEN ${pg.escapeIdentifier(ch)}`);
      if (this.closed) {
        await client.end().catch(() => {});
        return;
      }
      const wasReconnect = this.failures > 0;
      this.client = client;
      this.failures = 0;
      if (wasReconnect) this.onReconnect();
    } catch (err) {
      this.lost(client, err as Error);
    }
  }

  private lost(client: pg.Client, err: Error): void {
    if (this.closed || (this.client !== null && this.client !== client)) return;
    this.client = null;
    client.removeAllListeners();
    client.on("error", () => {});
    client.end().catch(() => {});
    if (this.retryTimer) return;
    this.failures += 1;
    const base = Math.min(250 * 2 ** Math.min(this.failures, 6), 15_000);
    const delay = base / 2 + Math.random() * (base / 2);
    this.log(`LISTEN connection lost (${err.message}); reconnecting in ${Math.round(delay)} ms`);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connecting = this.connect();
    }, delay);
    this.retryTimer.unref?.();
  }

  async stop(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.pollTimer) clearInterval(this.pollTimer);
    const c = this.client;
    this.client = null;
    if (c) {
      c.removeAllListeners();
      c.on("error", () => {});
      await c.end().catch(() => {});
    }
  }
}
