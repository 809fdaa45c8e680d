import { describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import path from "node:path";
import { getSortedRoutes } from "next/dist/shared/lib/router/utils/sorted-routes";
import { getRouteRegex } from "next/dist/shared/lib/router/utils/route-regex";
import * as unknown from "@/app/api/[...unknown]/route";

const APP = path.resolve(import.meta.dirname, "../../app");

/** Every route handler under app/api as Next names it (`/api/tasks/[id]/cancel`). */
function apiRoutes(): string[] {
  return readdirSync(path.join(APP, "api"), { recursive: true, encoding: "utf8" })
    .filter((f) => path.basename(f) === "route.ts")
    .map((f) => `/api/${path.dirname(f).split(path.sep).join("/")}`.replace(/\/\.$/, ""));
}

/** The route Next picks for a path: the first match in its own priority order. */
function resolve(pathname: string): string | undefined {
  return getSortedRoutes(apiRoutes()).find((r) => getRouteRegex(r).re.test(pathname));
}

describe("unknown /api paths", () => {
  it("the catch-all never shadows a real route (better-auth's included)", () => {
    expect(resolve("/api/auth/sign-in/email")).toBe("/api/auth/[...all]");
    expect(resolve("/api/auth/get-session")).toBe("/api/auth/[...all]");
    expect(resolve("/api/conversations")).toBe("/api/conversations");
    expect(resolve("/api/conversations/x/messages")).toBe("/api/conversations/[id]/messages");
    expect(resolve("/api/tasks/x/cancel")).toBe("/api/tasks/[id]/cancel");
    expect(resolve("/api/events")).toBe("/api/events");
    expect(resolve("/api/health")).toBe("/api/health");
    expect(resolve("/api/metrics")).toBe("/api/metrics");
    for (const p of ["/api/nope", "/api/conversations/x/y/z", "/api/tasks/x/unknown", "/api/health/x"]) {
      expect(resolve(p), p).toBe("/api/[...unknown]");
    }
  });

  it("answers every method with the JSON 404 contract", async () => {
    for (const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const) {
      const res = unknown[method]();
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(await res.json()).toEqual({ error: { code: "not_found", message: "No such API route" } });
    }
  });
});
