import { afterEach, describe, expect, it } from "vitest";
import { behindPooler, directDatabaseUrl } from "./urls";

const saved = { url: process.env.DATABASE_URL, direct: process.env.DATABASE_DIRECT_URL };
afterEach(() => {
  for (const [k, v] of [
    ["DATABASE_URL", saved.url],
    ["DATABASE_DIRECT_URL", saved.direct],
  ] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});
const set = (url?: string, direct?: string) => {
  if (url === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = url;
  if (direct === undefined) delete process.env.DATABASE_DIRECT_URL;
  else process.env.DATABASE_DIRECT_URL = direct;
};

describe("pooler mode", () => {
  it("is off for a plain DATABASE_URL, whose connections also carry LISTEN", () => {
    set("postgres://u:p@db:5432/herald");
    expect(behindPooler()).toBe(false);
    expect(directDatabaseUrl()).toBe("postgres://u:p@db:5432/herald");
  });
  it("is on with DATABASE_DIRECT_URL, which then carries LISTEN and migrations", () => {
    set("postgres://u:p@pooler:6432/herald", "postgres://u:p@db:5432/herald");
    expect(behindPooler()).toBe(true);
    expect(directDatabaseUrl()).toBe("postgres://u:p@db:5432/herald");
  });
  it("is on with pgbouncer=true alone, with nothing to LISTEN on", () => {
    set("postgres://u:p@pooler:6432/herald?pgbouncer=true");
    expect(behindPooler()).toBe(true);
    expect(directDatabaseUrl()).toBeUndefined();
  });
  it("is off when both URLs are the same (a template that sets both)", () => {
    set("postgres://u:p@db:5432/herald", "postgres://u:p@db:5432/herald");
    expect(behindPooler()).toBe(false);
  });
});
