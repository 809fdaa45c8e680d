import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import * as logModule from "./log";
import { readJsonColumn } from "./json-column";

afterEach(() => vi.restoreAllMocks());

const schema = z.object({ n: z.number().int().min(0).optional() });

function spyWarn() {
  const warn = vi.fn();
  vi.spyOn(logModule, "log").mockReturnValue({ warn } as never);
  return warn;
}

describe("readJsonColumn", () => {
  it("reads a value the schema accepts", () => {
    const warn = spyWarn();
    expect(readJsonColumn("t.c", schema, { n: 2, other: "x" }, {})).toEqual({ n: 2 });
    expect(warn).not.toHaveBeenCalled();
  });

  it("reads null as the empty value without a word", () => {
    const warn = spyWarn();
    expect(readJsonColumn("t.c", schema, null, { n: 0 })).toEqual({ n: 0 });
    expect(warn).not.toHaveBeenCalled();
  });

  it("reads a rejected value as the empty value and logs where it failed, never the value", () => {
    const warn = spyWarn();
    expect(readJsonColumn("task.driverData (x)", schema, { n: "secret text" }, {}, "task-1")).toEqual({});
    expect(warn).toHaveBeenCalledOnce();
    const [fields, message] = warn.mock.calls[0];
    expect(fields).toEqual({ taskId: "task-1" });
    expect(message).toContain("task.driverData (x)");
    expect(message).toContain("n: invalid_type");
    expect(message).not.toContain("secret text");
  });
});
