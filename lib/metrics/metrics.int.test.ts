import { describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import * as metrics from "@/app/api/metrics/route";
import { getDb } from "@/lib/db/client";
import { postMessage } from "@/lib/chat/post-message";
import { createConversationFor, signUp } from "@/tests/helpers";

describe("/api/metrics", () => {
  it("reports queue depth and dead letters in Prometheus text, without ids", async () => {
    const u = await signUp("Metrics");
    const conv = await createConversationFor(u);
    const { run } = await postMessage(u.id, conv, { content: "hi", clientMessageId: randomUUID() });
    const task = await getDb().task.create({
      data: { ownerId: u.id, conversationId: conv, title: "t", prompt: "p", status: "succeeded", notificationStatus: "dead_letter" },
    });
    const res = await metrics.GET(new Request("http://localhost/api/metrics"));
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    const value = (line: RegExp) => Number(text.split("\n").find((l) => line.test(l))?.split(" ").pop());
    expect(value(/^herald_runs\{kind="chat",status="queued"\}/)).toBeGreaterThanOrEqual(1);
    expect(value(/^herald_notification_dead_letters /)).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/# TYPE herald_workers_alive gauge/);
    for (const id of [u.id, conv, run.id, task.id]) expect(text).not.toContain(id);
  });
});
