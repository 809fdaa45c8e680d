// Feed fan-out under load: `accounts` × `feedsPerAccount` open SSE
// feeds on one web process — scripts/server.ts on the production build when there
// is one (bench/next-server.ts), else the route handlers behind a bare Node server
// (bench/fanout-server.ts) — in its own process, so its memory is only the server's;
// then every account posts a message at once, `rounds` times.
//   - POST → `message.created` read on every feed of the posting account
//   - the POST's own latency (202) with all those feeds open, and without them beside the
//     same burst of a cheap authenticated GET (the server's floor at that concurrency)
//   - web memory per idle feed (RSS and heap after GC) and after the feeds close
import { existsSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { runStandalone } from "./fresh";

export interface FanoutOptions {
  accounts: number;
  feedsPerAccount: number;
  rounds: number;
  /** "next": scripts/server.ts on the production build (the default when one exists); "plain": the route handlers behind a bare Node server. */
  server?: "plain" | "next";
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};
const summary = (xs: number[]) => ({
  n: xs.length,
  p50: Math.round(pct(xs, 50)),
  p99: Math.round(pct(xs, 99)),
  max: Math.round(Math.max(...xs)),
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Mem {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  feedAccounts: number | null;
}

export async function fanoutBench(opts: FanoutOptions) {
  const { signUp, createConversationFor, waitFor } = await import("../tests/helpers");
  const root = path.resolve(import.meta.dirname, "..");
  const { fork } = await import("node:child_process");
  const { pickFreePort } = await import("../lib/util/free-port");
  // The real web process when there is a production build (like bench/browser-feed.ts), else the bare handlers.
  const viaNext = (opts.server ?? (existsSync(path.join(root, ".next", "BUILD_ID")) ? "next" : "plain")) === "next";
  const port = viaNext ? await pickFreePort() : 0;
  const origin = viaNext ? `http://localhost:${port}` : "http://localhost:3000";
  const childEnv = { ...process.env, HERALD_MAX_FEEDS_PER_ACCOUNT: String(opts.feedsPerAccount), HERALD_LIMITS: "off" };
  const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // Next: the real web process (scripts/server.ts on the production build in .next).
  const server = viaNext
    ? fork(path.join(root, "bench/next-server.ts"), [], {
        cwd: root,
        execArgv: ["--expose-gc", "--import", "tsx", ...profile],
        env: {
          ...childEnv,
          PORT: String(port),
          HOST: "127.0.0.1",
          BETTER_AUTH_URL: origin,
          BETTER_AUTH_SECRET: "bench-secret-bench-secret-bench-secret",
          HERALD_AUTH_RATE_LIMIT: "off",
        },
        stdio: ["ignore", "ignore", "inherit", "ipc"],
      })
    : fork(path.join(root, "bench/fanout-server.ts"), [], {
        cwd: root,
        execArgv: ["--expose-gc", "--import", "tsx", ...profile],
        env: childEnv,
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
  const serverPort = viaNext
    ? port
    : await new Promise<number>((resolve, reject) => {
        server.once("message", (m) => resolve((m as { port: number }).port));
        server.once("exit", (code) => reject(new Error(`fanout server exited ${code}`)));
      });
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const request = (method: string, p: string, cookie: string, body?: unknown) =>
    new Promise<{ status: number; text: string; setCookie: string[] }>((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = http.request(
        {
          host: "127.0.0.1",
          port: serverPort,
          method,
          path: p,
          agent,
          headers: { cookie, origin, ...(data ? { "content-type": "application/json" } : {}) },
        },
        (res) => {
          let text = "";
          res.on("data", (d) => (text += d));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, text, setCookie: res.headers["set-cookie"] ?? [] }),
          );
        },
      );
      req.on("error", reject);
      req.end(data);
    });
  // Through Next: after a full GC in the web process (bench/next-server.ts), asked over IPC.
  const memory = async (): Promise<Mem> => {
    if (!viaNext) return JSON.parse((await request("GET", "/bench/memory", "")).text) as Mem;
    const answer = new Promise<Mem>((resolve) => {
      const on = (m: unknown) => {
        const memory = (m as { memory?: Mem }).memory;
        if (!memory) return;
        server.off("message", on);
        resolve({ ...memory, feedAccounts: null });
      };
      server.on("message", on);
    });
    server.send("memory");
    return answer;
  };
  if (viaNext) {
    const exited = new Promise<never>((_, reject) =>
      server.once("exit", (code) =>
        reject(new Error(`web process exited ${code} (is there a production build? npx next build)`)),
      ),
    );
    exited.catch(() => {});
    await Promise.race([
      waitFor(async () => (await request("GET", "/api/health", "").catch(() => null)) !== null, 120_000, "web process"),
      exited,
    ]);
  }

  const users: { id: string; cookie: string; conv: string }[] = [];
  for (let a = 0; a < opts.accounts; a++) {
    let u: { id: string; email: string; cookie: string };
    if (viaNext) {
      const email = `fanout${a}-${randomUUID().slice(0, 8)}@example.test`;
      const r = await request("POST", "/api/auth/sign-up/email", "", {
        name: `Fanout${a}`,
        email,
        password: "correct horse battery",
      });
      if (r.status !== 200) throw new Error(`sign-up answered ${r.status}: ${r.text}`);
      u = {
        id: (JSON.parse(r.text) as { user: { id: string } }).user.id,
        email,
        cookie: r.setCookie.map((c) => c.split(";")[0]).join("; "),
      };
    } else u = await signUp(`Fanout${a}`);
    users.push({ ...u, conv: await createConversationFor(u) });
  }

  // Tag → arrival time, per feed; a feed counts a tag once, from the message.created frame.
  const feeds: { account: number; seen: Map<string, number>; opened: boolean; req: http.ClientRequest }[] = [];
  const openFeed = (account: number) => {
    const feed = {
      account,
      seen: new Map<string, number>(),
      opened: false,
      req: null as unknown as http.ClientRequest,
    };
    let buf = "";
    feed.req = http.get(
      {
        host: "127.0.0.1",
        port: serverPort,
        path: "/api/events",
        agent: false,
        headers: { cookie: users[account].cookie, accept: "text/event-stream" },
      },
      (res) => {
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          const now = performance.now();
          feed.opened = true;
          buf += chunk;
          let i;
          while ((i = buf.indexOf("\n\n")) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            if (!block.includes("event: message.created")) continue;
            const m = /fanout:(-?\d+):(\d+)/.exec(block);
            if (m && !feed.seen.has(m[0])) feed.seen.set(m[0], now);
          }
        });
        res.on("error", () => {});
      },
    );
    feed.req.on("error", () => {});
    feeds.push(feed);
  };

  const results: Record<string, unknown> = {
    server: viaNext ? "next (scripts/server.ts)" : "plain node (bench/fanout-server.ts)",
    accounts: opts.accounts,
    feedsPerAccount: opts.feedsPerAccount,
    rounds: opts.rounds,
  };
  try {
    const post = async (round: number, a: number, sentAt: Map<string, number>, postMs: number[]) => {
      const tag = `fanout:${round}:${a}`;
      const t0 = performance.now();
      sentAt.set(tag, t0);
      const r = await request("POST", `/api/conversations/${users[a].conv}/messages`, users[a].cookie, {
        content: `${tag} hello`,
        clientMessageId: randomUUID(),
      });
      if (r.status !== 202) throw new Error(`POST answered ${r.status}: ${r.text}`);
      postMs.push(performance.now() - t0);
    };
    const collect = async (round: number, sentAt: Map<string, number>, lat: number[]) => {
      const expected = (f: (typeof feeds)[number]) => `fanout:${round}:${f.account}`;
      await waitFor(async () => feeds.every((f) => f.seen.has(expected(f))), 60_000, `round ${round} delivered`).catch(
        () => null,
      );
      let missed = 0;
      for (const f of feeds) {
        const at = f.seen.get(expected(f));
        if (at === undefined) missed += 1;
        else lat.push(at - sentAt.get(expected(f))!);
      }
      return missed;
    };

    // Warm-up (module loading, JIT, connections), not counted.
    await Promise.all(users.map((_, a) => post(-100, a, new Map(), [])));
    // The POSTs alone, all accounts at once, before any feed is open.
    const alone: number[] = [];
    for (let round = 0; round < opts.rounds; round++) {
      await Promise.all(users.map((_, a) => post(-1 - round, a, new Map(), alone)));
      await sleep(300);
    }
    results.postLatencyNoFeedsMs = summary(alone);
    // The same burst of the cheapest authenticated request (session check + one read): what
    // any request costs on this server at this concurrency, for reading the POST figure against.
    const reads: number[] = [];
    for (let round = 0; round < opts.rounds; round++) {
      await Promise.all(
        users.map(async (u) => {
          const t0 = performance.now();
          const r = await request("GET", `/api/conversations/${u.conv}`, u.cookie);
          if (r.status !== 200) throw new Error(`GET answered ${r.status}: ${r.text}`);
          reads.push(performance.now() - t0);
        }),
      );
      await sleep(300);
    }
    results.authedGetLatencyNoFeedsMs = summary(reads);
    await sleep(500);
    const base = await memory();
    for (let a = 0; a < opts.accounts; a++) for (let f = 0; f < opts.feedsPerAccount; f++) openFeed(a);
    await waitFor(async () => feeds.every((f) => f.opened), 120_000, "feeds open");
    await sleep(2_000);
    const open = await memory();
    const n = feeds.length;
    results.memoryPerIdleFeedKiB = {
      rss: Math.round((open.rss - base.rss) / n / 1024),
      heap: Math.round((open.heapUsed - base.heapUsed) / n / 1024),
      // Pages V8 holds for its heap, used or not: most of the RSS above the heap figure.
      heapReserved: Math.round((open.heapTotal - base.heapTotal) / n / 1024),
      external: Math.round((open.external - base.external) / n / 1024),
    };

    // All accounts at once.
    const lat: number[] = [];
    const postMs: number[] = [];
    let missed = 0;
    for (let round = 0; round < opts.rounds; round++) {
      const sentAt = new Map<string, number>();
      await Promise.all(users.map((_, a) => post(round, a, sentAt, postMs)));
      missed += await collect(round, sentAt, lat);
      await sleep(300);
    }
    results.concurrentPostToFeedMs = { ...summary(lat), missed };
    results.postLatencyMs = summary(postMs);

    // One account after another, for comparison.
    const seqLat: number[] = [];
    const round = opts.rounds;
    const sentAt = new Map<string, number>();
    for (let a = 0; a < opts.accounts; a++) await post(round, a, sentAt, []);
    const seqMissed = await collect(round, sentAt, seqLat);
    results.sequentialPostToFeedMs = { ...summary(seqLat), missed: seqMissed };

    for (const f of feeds) f.req.destroy();
    // Until the server has seen every feed close (under load that takes seconds).
    if (viaNext) await sleep(5_000);
    else await waitFor(async () => (await memory()).feedAccounts === 0, 60_000, "feeds closed").catch(() => null);
    await sleep(1_000);
    const closed = await memory();
    results.memoryMiB = {
      base: Math.round(base.rss / 2 ** 20),
      open: Math.round(open.rss / 2 ** 20),
      afterClose: Math.round(closed.rss / 2 ** 20),
      heapAfterCloseMiB: Math.round(closed.heapUsed / 2 ** 20),
      heapBaseMiB: Math.round(base.heapUsed / 2 ** 20),
    };
  } finally {
    for (const f of feeds) f.req.destroy();
    agent.destroy();
    server.kill("SIGTERM");
  }
  return results;
}

// `npx tsx bench/fanout.ts [accounts] [feedsPerAccount] [rounds] [--next|--plain]` on its own throwaway database.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  process.env.BETTER_AUTH_SECRET ??= "bench-secret-bench-secret-bench-secret";
  const [accounts = 20, feedsPerAccount = 100, rounds = 5] = process.argv.slice(2, 5).map(Number);
  const server = process.argv.includes("--next") ? "next" : process.argv.includes("--plain") ? "plain" : undefined;
  runStandalone({ HERALD_LIMITS: "off" }, () => fanoutBench({ accounts, feedsPerAccount, rounds, server }));
}
