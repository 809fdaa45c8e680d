import type { Driver } from "./types";
import { researchDriver } from "./research";

export const DRIVERS = { research: researchDriver } satisfies Record<string, Driver>;
export type DriverName = keyof typeof DRIVERS;

export function driverFor(name: string): Driver | null {
  return (DRIVERS as Record<string, Driver>)[name] ?? null;
}
