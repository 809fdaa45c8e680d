import { afterEach, describe, expect, it } from "vitest";
import { DriversNotSetUpError, driverFor, registerDriver } from "./registry";
import { isKnownDriver, setUpDrivers } from "./setup";

const g = globalThis as unknown as { heraldDrivers?: unknown };

describe("the driver registry", () => {
  afterEach(() => {
    delete g.heraldDrivers;
    delete process.env.HERALD_REMOTE_AGENTS;
  });

  it("refuses to answer before the process set its drivers up, instead of calling every driver unknown", () => {
    delete g.heraldDrivers;
    expect(() => driverFor("research")).toThrow(DriversNotSetUpError);
    expect(() => registerDriver("double", {} as never)).toThrow(DriversNotSetUpError);
  });

  it("setUpDrivers registers research and every configured remote driver, as the configuration reads at that call", async () => {
    process.env.HERALD_REMOTE_AGENTS = JSON.stringify([
      { name: "peer", description: "d", url: "http://127.0.0.1:1", assistantId: "g" },
    ]);
    expect(await setUpDrivers()).toEqual(["research", "agent:peer"]);
    expect(driverFor("research")).not.toBeNull();
    expect(driverFor("agent:peer")?.acceptsUpdates).toBe(true);
    expect(driverFor("agent:other")).toBeNull();
  });

  it("a task may name a configured driver even in a process that has not set up (the check reads the configuration)", () => {
    delete g.heraldDrivers;
    process.env.HERALD_REMOTE_AGENTS = JSON.stringify([
      { name: "later", description: "d", url: "http://127.0.0.1:1", assistantId: "g" },
    ]);
    expect(isKnownDriver("agent:later")).toBe(true);
    expect(isKnownDriver("research")).toBe(true);
    expect(isKnownDriver("agent:nobody")).toBe(false);
  });
});
