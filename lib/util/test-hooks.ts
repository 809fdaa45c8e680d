import { env } from "@/lib/config/env";
import { log } from "@/lib/util/log";

/**
 * The places where a crash test needs product code to hold still: between a
 * remote create and its stored handle, between the SMTP server's 250 and our
 * record of it. Product code calls `testHooks()`; it never reads a test
 * setting itself. Nothing is set in production, so every hook is a no-op.
 *
 * An in-process test sets hooks with `setTestHooks`. A crash test kills a real
 * worker process, which only env can reach: that process's entry point calls
 * `installTestHooksFromEnv()` once at start (the `HERALD_TEST_*` pauses in
 * docs/operations.md), and this is the only module that reads them.
 */
export interface TestHooks {
  /** After a remote run or MCP task was created, before its handle is stored. */
  afterRemoteCreate?(taskId: string): Promise<void>;
  /** After the SMTP server accepted a notice email, before the send is recorded. */
  afterEmailSend?(noticeId: string): Promise<void>;
}

let hooks: TestHooks = {};

export function testHooks(): Readonly<TestHooks> {
  return hooks;
}

/** Replaces every hook (tests only; `{}` restores the no-ops). */
export function setTestHooks(next: TestHooks): void {
  hooks = next;
}

/** A hook that logs a line the test waits for, then holds the window open for a SIGKILL. */
function pause(ms: number, line: string): (id: string) => Promise<void> {
  return async (id) => {
    log("test-hooks").info(`${line} ${id}`);
    await new Promise((r) => setTimeout(r, ms));
  };
}

/** Worker process start: the crash tests' pauses, read from env once. */
export function installTestHooksFromEnv(): void {
  const create = env("HERALD_TEST_AGENT_PAUSE_AFTER_CREATE_MS");
  const send = env("HERALD_TEST_EMAIL_PAUSE_AFTER_SEND_MS");
  setTestHooks({
    ...(create > 0 ? { afterRemoteCreate: pause(create, "test pause after create") } : {}),
    ...(send > 0 ? { afterEmailSend: pause(send, "test pause after send") } : {}),
  });
}
