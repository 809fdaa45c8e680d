import { describe, expect, it } from "vitest";
import { canonicalTimeZone } from "./clock";
import { settingsPatchBody } from "./settings";

describe("settings validation", () => {
  it("takes any subset of the three fields", () => {
    expect(settingsPatchBody.parse({ language: "zh" })).toEqual({ language: "zh" });
    expect(settingsPatchBody.parse({ emailNotices: "all", timeZone: "Asia/Shanghai" })).toEqual({
      emailNotices: "all",
      timeZone: "Asia/Shanghai",
    });
  });
  it("time zones must be real IANA zones, stored by their canonical name", () => {
    expect(settingsPatchBody.parse({ timeZone: "utc" })).toEqual({ timeZone: "UTC" });
    expect(canonicalTimeZone("Europe/Berlin")).toBe("Europe/Berlin");
    for (const bad of ["Mars/Olympus", "", "x".repeat(65), "Europe/Berlin\n"]) {
      const r = settingsPatchBody.safeParse({ timeZone: bad });
      expect(r.success, bad).toBe(false);
      expect(r.error!.issues[0].path).toEqual(["timeZone"]);
    }
  });
  it("refuses bad values, unknown fields and an empty patch, naming the field", () => {
    expect(settingsPatchBody.safeParse({ language: "fr" }).error!.issues[0].path).toEqual(["language"]);
    expect(settingsPatchBody.safeParse({ emailNotices: "sometimes" }).error!.issues[0].path).toEqual(["emailNotices"]);
    expect(settingsPatchBody.safeParse({ theme: "dark" }).error!.issues[0].code).toBe("unrecognized_keys");
    expect(settingsPatchBody.safeParse({}).success).toBe(false);
  });
});
