import { describe, expect, it } from "vitest";
import { createLogger, maskSecrets, withLogContext } from "./log";

function capture(level = "info") {
  const lines: { level: number; record: Record<string, unknown>; raw: string }[] = [];
  const logger = createLogger((raw, lvl) => lines.push({ level: lvl, raw, record: JSON.parse(raw) }), level);
  return { logger, lines };
}

describe("log", () => {
  it("writes one JSON line per call with the ids of the surrounding work", async () => {
    const { logger, lines } = capture();
    await withLogContext({ accountId: "acc-1", conversationId: "conv-1" }, async () => {
      await Promise.resolve();
      withLogContext({ taskId: "task-1", runId: "run-1" }, () =>
        logger.info({ loop: "tasks", ms: 12 }, "step committed"),
      );
    });
    expect(lines).toHaveLength(1);
    const r = lines[0].record;
    expect(r).toMatchObject({
      level: 30,
      msg: "step committed",
      accountId: "acc-1",
      conversationId: "conv-1",
      taskId: "task-1",
      runId: "run-1",
      loop: "tasks",
      ms: 12,
    });
    expect(typeof r.traceId).toBe("string");
    expect(typeof r.time).toBe("number");
  });

  it("keeps one trace id through nested contexts and a fresh one per unit of work", () => {
    const { logger, lines } = capture();
    withLogContext({ runId: "a" }, () => withLogContext({ taskId: "t" }, () => logger.info("inner")));
    withLogContext({ runId: "b" }, () => logger.info("other"));
    expect(lines[0].record.traceId).toBeTruthy();
    expect(lines[0].record.traceId).not.toBe(lines[1].record.traceId);
  });

  it("never carries user text or secrets passed as fields", () => {
    const { logger, lines } = capture();
    const userText = "my private diary entry about the merger";
    logger.warn(
      {
        content: userText,
        prompt: userText,
        title: userText,
        email: "alice@example.com",
        password: "hunter2",
        authorization: "Bearer abc.def.ghi",
        headers: { cookie: "session=s3cr3t" },
        taskId: "task-9",
      },
      "something happened",
    );
    const raw = lines[0].raw;
    for (const s of [userText, "alice@example.com", "hunter2", "abc.def.ghi", "s3cr3t"]) expect(raw).not.toContain(s);
    expect(lines[0].record.content).toBe("[redacted]");
    expect(lines[0].record.taskId).toBe("task-9");
    expect(lines[0].level).toBe(40);
  });

  it("keeps the raw error for the operator with its credentials masked", () => {
    const { logger, lines } = capture();
    const err = Object.assign(
      new Error(
        "connect ECONNREFUSED postgres://herald:hunter2@10.1.2.3:5432/db token=sk-live-123456 Authorization: Bearer tok_abcdef",
      ),
      {
        code: "ECONNREFUSED",
      },
    );
    logger.error({ err, context: "tasks x" }, "step failed");
    const r = lines[0].record as { err: { type: string; code: string; message: string; stack: string } };
    expect(r.err.type).toBe("Error");
    expect(r.err.code).toBe("ECONNREFUSED");
    expect(r.err.message).toContain("10.1.2.3");
    for (const s of ["hunter2", "sk-live-123456", "tok_abcdef"]) expect(lines[0].raw).not.toContain(s);
    expect(r.err.stack).toContain("log.test.ts");
  });

  it("honours the level", () => {
    const { logger, lines } = capture("warn");
    logger.info("quiet");
    logger.debug("quieter");
    logger.warn("loud");
    expect(lines.map((l) => l.record.msg)).toEqual(["loud"]);
  });

  it("bounds the error text it scans and keeps", () => {
    const hostile = "a://" + "b".repeat(100_000) + ":" + "c".repeat(100_000);
    expect(maskSecrets(hostile).length).toBeLessThanOrEqual(4_000);
  });
});
