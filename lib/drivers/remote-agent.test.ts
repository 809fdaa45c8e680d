import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Task } from "@/lib/db/generated/client.ts";
import { DriverProtocolError } from "@/lib/errors/protocol";
import { classifyError } from "@/lib/errors/public";
import * as logModule from "@/lib/util/log";
import { createAgentDriver, finalReply, questionOf, runOutcome, runningPollMs } from "./remote-agent";

afterEach(() => vi.restoreAllMocks());

describe("finalReply: the thread's last message, or a bounded reason why not", () => {
  it.each([
    [
      {
        messages: [
          { type: "human", content: "q" },
          { type: "ai", content: "  the report  " },
        ],
      },
      { ok: true, text: "the report" },
    ],
    [
      {
        messages: [
          {
            role: "assistant",
            content: [{ type: "text", text: "a" }, { type: "image_url" }, { type: "text", text: "b" }],
          },
        ],
      },
      { ok: true, text: "a\n\nb" },
    ],
  ])("%j", (values, expected) => {
    expect(finalReply(values)).toEqual(expected);
  });

  it.each([
    [undefined, "without any message"],
    [{ messages: [] }, "without any message"],
    [{ messages: "nope" }, "without any message"],
    [{ messages: [{ type: "human", content: "only the question" }] }, "not the agent's"],
    [{ messages: [{ type: "ai", content: "   " }] }, "empty message"],
    [{ messages: [{ type: "ai", content: [{ type: "image_url", image_url: "x" }] }] }, "without text"],
    [{ messages: [{ type: "ai", content: { weird: true } }] }, "cannot read"],
  ])("%j fails: %s", (values, reason) => {
    const r = finalReply(values);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toContain(reason);
  });

  it("a huge reply is cut to a preview within 256 KiB", () => {
    const r = finalReply({ messages: [{ type: "ai", content: "x".repeat(400_000) }] });
    expect(r.ok && Buffer.byteLength(r.text)).toBeLessThanOrEqual(256 * 1024);
  });

  it("questionOf takes the first interrupt's question, a string value, or JSON; never empty", () => {
    expect(questionOf({ t: [{ value: { question: "Which region?" } }] })).toEqual({ question: "Which region?" });
    expect(questionOf({ t: [{ value: "Plain?" }] })).toEqual({ question: "Plain?" });
    expect(questionOf({ t: [{ value: { pick: [1, 2] } }] })).toEqual({ question: '{"pick":[1,2]}' });
    expect(questionOf(undefined).question).toMatch(/waiting for input/);
  });

  it("running runs are polled every second at first, then less often, at most every 10 s", () => {
    const now = Date.parse("2026-01-01T01:00:00Z");
    const at = (msAgo: number) => ({ created_at: new Date(now - msAgo).toISOString() });
    expect(
      [at(0), at(30_000), at(120_000), at(3_600_000), { created_at: "garbage" }].map((r) => runningPollMs(r, now)),
    ).toEqual([1_000, 1_500, 6_000, 10_000, 1_000]);
  });

  it("runOutcome maps every run status explicitly; an unknown one is a protocol error", () => {
    expect(["pending", "running", "success", "error", "timeout", "interrupted"].map(runOutcome)).toEqual([
      "active",
      "active",
      "done",
      "failed",
      "timeout",
      "interrupted",
    ]);
    expect(() => runOutcome("exploded")).toThrow(DriverProtocolError);
  });
});

/**
 * Malformed and failing remotes, from a stub HTTP server: a broken contract
 * is a DriverProtocolError (the task fails), anything that may pass is a
 * plain error (the executor backs off and keeps polling).
 */
describe("remote answers Herald cannot use", () => {
  let server: Server;
  let url: string;
  let reply: (path: string) => { status: number; body: unknown };
  const seen: { path: string; headers: Record<string, unknown> }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ path: req.url ?? "", headers: req.headers });
      const r = reply(req.url ?? "");
      res.writeHead(r.status, { "content-type": "application/json" });
      res.end(JSON.stringify(r.body));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    seen.length = 0;
  });

  const driver = () =>
    createAgentDriver({ name: "stub", url, assistantId: "g", headers: { "x-api-key": "stub-secret" } });
  const task = { id: "task-1", remoteRef: "thread-1", pendingUpdates: [], driverData: {} } as unknown as Task;
  const step = () =>
    driver().step({
      task,
      pendingUpdates: [],
      steps: [],
      model: undefined as never,
      signal: new AbortController().signal,
    });

  it("a run list that is not a list, or a run without an id, fails the task as a protocol error", async () => {
    reply = () => ({ status: 200, body: { runs: "not a list" } });
    await expect(step()).rejects.toBeInstanceOf(DriverProtocolError);
    reply = () => ({ status: 200, body: [{ status: "running" }] });
    await expect(step()).rejects.toBeInstanceOf(DriverProtocolError);
    // The configured header went along; the SDK added no key of its own.
    expect(seen[0].headers["x-api-key"]).toBe("stub-secret");
  });

  it("5xx and auth failures are transient (kept polling with backoff); a 404 thread fails with its own words", async () => {
    for (const status of [500, 502, 503, 401]) {
      reply = () => ({ status, body: { detail: "nope" } });
      const err = await step().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(Error);
      expect(err).not.toBeInstanceOf(DriverProtocolError);
    }
    reply = () => ({ status: 404, body: { detail: "Thread not found" } });
    expect(await step()).toMatchObject({ status: "failed", error: expect.stringContaining("no longer knows") });
    // Nothing left to stop: the cancel stands instead of retrying forever.
    expect(await driver().cancel(task, new AbortController().signal)).toEqual({ status: "cancelled" });
  });

  it("a pending run keeps the task queued; a running one starts it", async () => {
    reply = () => ({ status: 200, body: [{ run_id: "r", status: "pending", created_at: new Date().toISOString() }] });
    expect(await step()).toMatchObject({ status: "queued" });
    reply = () => ({ status: 200, body: [{ run_id: "r", status: "running", created_at: new Date().toISOString() }] });
    expect(await step()).toMatchObject({ status: "running" });
  });

  it("unreadable driverData reads as none (the first update is number 1) and is logged", async () => {
    const warn = vi.fn();
    vi.spyOn(logModule, "log").mockReturnValue({ warn } as never);
    // The newest-run lookup carries a query; the update's run is created on the bare path.
    reply = (path) => ({ status: 200, body: path.includes("?") ? [] : { run_id: "r2", status: "pending" } });
    const odd = { ...task, driverData: { agent: "stub", updatesSent: "two" } } as unknown as Task;
    const o = await driver().step({
      task: odd,
      pendingUpdates: ["more on costs"],
      steps: [],
      model: undefined as never,
      signal: new AbortController().signal,
    });
    expect(o).toMatchObject({ consumedUpdates: 1, driverState: { updatesSent: 1 } });
    expect(warn).toHaveBeenCalledWith({ taskId: "task-1" }, expect.stringContaining("task.driverData (agent)"));
  });

  it("nobody listening: a transient error users see as 'unreachable'", async () => {
    const gone = createAgentDriver({ name: "gone", url: "http://127.0.0.1:9", assistantId: "g", headers: {} });
    const err = await gone
      .step({ task, pendingUpdates: [], steps: [], model: undefined as never, signal: new AbortController().signal })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).not.toBeInstanceOf(DriverProtocolError);
    expect(classifyError(err)).toBe("unreachable");
  });

  it("a 400 on submit is a refusal (protocol error), and the remote's id never appears in errors", async () => {
    reply = (path) =>
      path.startsWith("/threads/search")
        ? { status: 200, body: [] }
        : { status: 400, body: { detail: "bad thread-1" } };
    const err = await driver()
      .submit(task, new AbortController().signal)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(DriverProtocolError);
    reply = () => ({ status: 200, body: [{ run_id: "r", status: "exploded", created_at: "2026-01-01T00:00:00Z" }] });
    const unknown = await step().then(
      () => null,
      (e: unknown) => e,
    );
    expect(unknown).toBeInstanceOf(DriverProtocolError);
    expect(String((unknown as Error).message)).not.toContain("thread-1");
  });
});
