import { expect, it } from "vitest";
import { waitFor } from "@/tests/helpers";
import { Fleet } from "./fleet";

// Without the restart a worker whose start failed (a PostgreSQL outage) stayed dead, and the chaos fleet shrank.
it(
  "a worker that exits on its own is started again, and counts as neither running nor killed",
  { timeout: 120_000 },
  async () => {
    const fleet = new Fleet(1, { DATABASE_URL: "postgresql://nobody:nothing@127.0.0.1:1/none" });
    try {
      expect(fleet.whole()).toBe(false);
      await waitFor(async () => fleet.boots().selfExits >= 2, 100_000, "two failed starts");
      expect(fleet.all()).toHaveLength(1);
      expect(fleet.ready()).toEqual([]);
      expect(fleet.boots().boots).toBe(0);
    } finally {
      await fleet.stop();
    }
  },
);
