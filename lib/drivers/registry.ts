import type { Driver } from "./types";
import { researchDriver } from "./research";

const drivers = new Map<string, Driver>([["research", researchDriver]]);

export function driverFor(name: string): Driver | null {
  return drivers.get(name) ?? null;
}

/**
 * Adds a driver at start-up. Remote drivers (agent-protocol, MCP) register
 * here when configured; tests register doubles to exercise the submit rules.
 */
export function registerDriver(name: string, driver: Driver): void {
  drivers.set(name, driver);
}

/** Every registered driver by name (the orphan reaper asks the remote ones for their lists). */
export function registeredDrivers(): [string, Driver][] {
  return [...drivers.entries()];
}
