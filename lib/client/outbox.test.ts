import { QueryClient } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { PublicMessage } from "@/lib/contract/shapes";
import { queryKeys } from "./cache";

let outbox: typeof import("./outbox");
let api: typeof import("./api");
const bodies: Array<{ content: string; clientMessageId: string }> = [];

function stored(body: { content: string; clientMessageId: string }): PublicMessage {
  return {
    id: `m-${bodies.length}`,
    conversationId: "c1",
    seq: bodies.length,
    kind: "user",
    content: body.content,
    meta: {},
    taskId: null,
    runId: null,
    publicationId: null,
    clientMessageId: body.clientMessageId,
    createdAt: new Date(0).toISOString(),
  } as PublicMessage;
}

/** Answers each send with `answers.shift()`: a status for an error, or "ok". */
function serve(answers: Array<"ok" | number>) {
  vi.stubGlobal(
    "fetch",
    vi.fn(async (_url: string, init: RequestInit) => {
      const body = JSON.parse(String(init.body));
      bodies.push(body);
      const answer = answers.shift() ?? "ok";
      // 0: the request never got an answer (offline).
      if (answer === 0) throw new TypeError("Failed to fetch");
      if (answer !== "ok") {
        return new Response(JSON.stringify({ error: { code: "unavailable", message: "down" } }), { status: answer });
      }
      return new Response(JSON.stringify({ message: stored(body), run: null }), { status: 201 });
    }),
  );
}

async function settled(): Promise<void> {
  await vi.waitFor(() => expect(outbox.getOutbox().some((m) => m.status === "sending")).toBe(false));
}

beforeEach(async () => {
  bodies.length = 0;
  vi.resetModules();
  outbox = await import("./outbox");
  api = await import("./api");
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("outbox", () => {
  it("shows a send until the server stores it, then the cache has the stored copy", async () => {
    serve(["ok"]);
    const qc = new QueryClient();
    qc.setQueryData<PublicMessage[]>(queryKeys.messages("c1"), []); // the open conversation's history is loaded
    outbox.sendOutgoing(qc, "c1", "hello");
    expect(outbox.getOutbox()).toMatchObject([{ conversationId: "c1", content: "hello", status: "sending" }]);
    await settled();
    expect(outbox.getOutbox()).toEqual([]);
    expect(qc.getQueryData<PublicMessage[]>(queryKeys.messages("c1"))?.map((m) => m.content)).toEqual(["hello"]);
  });

  it("a failed send stays with its error; retry resends the same clientMessageId; discard drops it", async () => {
    serve([503, 503]);
    const qc = new QueryClient();
    outbox.sendOutgoing(qc, "c1", "hello");
    await settled();
    const [failed] = outbox.getOutbox();
    expect(failed.status).toBe("failed");
    expect(failed.error).toBeInstanceOf(api.ResponseError);
    expect(failed.error?.status).toBe(503);

    outbox.retryOutgoing(qc, failed.clientMessageId);
    expect(outbox.getOutbox()[0]).toMatchObject({ status: "sending", error: null });
    await settled();
    expect(bodies.map((b) => b.clientMessageId)).toEqual([failed.clientMessageId, failed.clientMessageId]);

    outbox.discardOutgoing(failed.clientMessageId);
    expect(outbox.getOutbox()).toEqual([]);
  });

  it("confirmOutgoing (the feed saw the stored message) removes the entry; unknown ids change nothing", async () => {
    serve([503]);
    const qc = new QueryClient();
    outbox.sendOutgoing(qc, "c1", "hello");
    await settled();
    const before = outbox.getOutbox();
    outbox.confirmOutgoing("unknown");
    expect(outbox.getOutbox()).toBe(before);
    outbox.confirmOutgoing(before[0].clientMessageId);
    expect(outbox.getOutbox()).toEqual([]);
  });

  it("after a reconnect, sends that failed for a transient reason go again once, in order, with the same clientMessageId", async () => {
    serve([0, 0, 400, "ok", "ok", 503]);
    const qc = new QueryClient();
    qc.setQueryData<PublicMessage[]>(queryKeys.messages("c1"), [stored({ content: "earlier", clientMessageId: "x" })]);
    outbox.sendOutgoing(qc, "c1", "first");
    await settled();
    outbox.sendOutgoing(qc, "c1", "second");
    await settled();
    outbox.sendOutgoing(qc, "c1", "refused");
    await settled();
    const [first, second, refused] = outbox.getOutbox();
    expect(first).toMatchObject({ status: "failed", afterSeq: 0 });
    expect(refused.error?.status).toBe(400);

    await outbox.retryAfterReconnect(qc);
    // The refused one is not retried: the same request would be refused again.
    expect(bodies.slice(3).map((b) => b.clientMessageId)).toEqual([first.clientMessageId, second.clientMessageId]);
    expect(outbox.getOutbox().map((m) => m.clientMessageId)).toEqual([refused.clientMessageId]);

    // Once: a second reconnect does not send the refused one, nor again what went through.
    await outbox.retryAfterReconnect(qc);
    expect(bodies).toHaveLength(5);
  });

  it("a send retried by itself that fails again waits for the user", async () => {
    serve([0, 503]);
    const qc = new QueryClient();
    outbox.sendOutgoing(qc, "c1", "hello");
    await settled();
    await outbox.retryAfterReconnect(qc);
    await outbox.retryAfterReconnect(qc);
    expect(bodies).toHaveLength(2);
    expect(outbox.getOutbox()[0]).toMatchObject({ status: "failed", autoRetried: true });
  });
});
