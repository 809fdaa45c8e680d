import { afterEach, describe, expect, it, vi } from "vitest";
import type { Task } from "@/lib/db/generated/client.ts";
import * as logModule from "@/lib/util/log";
import { withPollMs } from "./poll-ms";

afterEach(() => vi.restoreAllMocks());

const taskWith = (driverData: unknown) => ({ id: "task-1", driverData }) as unknown as Task;

describe("withPollMs", () => {
  it("writes the interval only when it changed", () => {
    expect(withPollMs(taskWith({ pollMs: 2000 }), { status: "running", pollAfterMs: 2000 })).toEqual({
      status: "running",
      pollAfterMs: 2000,
    });
    expect(withPollMs(taskWith(null), { status: "running", pollAfterMs: 2000 }).driverState).toEqual({ pollMs: 2000 });
  });

  it("an unreadable stored interval is logged and treated as none", () => {
    const warn = vi.fn();
    vi.spyOn(logModule, "log").mockReturnValue({ warn } as never);
    const o = withPollMs(taskWith({ pollMs: "2000" }), {
      status: "running",
      pollAfterMs: 2000,
      driverState: { stream: false },
    });
    expect(o.driverState).toEqual({ stream: false, pollMs: 2000 });
    expect(warn).toHaveBeenCalledWith({ taskId: "task-1" }, expect.stringContaining("task.driverData (pollMs)"));
  });
});
