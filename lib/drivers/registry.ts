import type { Driver } from "./types";

/**
 * The drivers this process runs. Set up once at process start by the entry
 * points (worker/index.ts, scripts/server.ts; tests/file-db.ts for integration
 * files) through `setUpDrivers()` in ./setup.ts; asking before that is a bug in
 * the entry point, so it throws instead of answering "unknown driver".
 *
 * Parked on globalThis: the web process loads this module twice, once for its
 * entry point and once inside Next's server bundle, and both must see one set.
 */
const g = globalThis as unknown as { heraldDrivers?: Map<string, Driver> };

export class DriversNotSetUpError extends Error {
  constructor() {
    super(
      "drivers are not set up in this process: its entry point must call setUpDrivers() (lib/drivers/setup.ts) at start",
    );
  }
}

function registry(): Map<string, Driver> {
  if (!g.heraldDrivers) throw new DriversNotSetUpError();
  return g.heraldDrivers;
}

export function driverFor(name: string): Driver | null {
  return registry().get(name) ?? null;
}

/** Whether `setUpDrivers()` ran in this process. */
export function driversSetUp(): boolean {
  return g.heraldDrivers !== undefined;
}

/** Adds (or replaces) drivers: `setUpDrivers()` at start; tests add doubles after it. */
export function registerDriver(name: string, driver: Driver): void {
  registry().set(name, driver);
}

/** Starts the registry (./setup.ts only). */
export function openRegistry(): void {
  g.heraldDrivers ??= new Map();
}

/** Every registered driver by name (the orphan reaper asks the remote ones for their lists). */
export function registeredDrivers(): [string, Driver][] {
  return [...registry().entries()];
}
