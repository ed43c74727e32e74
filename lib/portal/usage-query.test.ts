import { describe, expect, it } from "vitest";
import { usageQueryFromCallQuery } from "./usage-query";

describe("usage query of a call log filter", () => {
  it("carries the shared filters and names the account as /v1/usage does", () => {
    const q = usageQueryFromCallQuery(
      new URLSearchParams(
        "startTime[gte]=2026-11-01T00:00:00.000Z&direction=outbound&to=44&hangupCause=NO_ANSWER&billingGroupId=bg_1",
      ),
    );
    expect(Object.fromEntries(q!)).toEqual({
      groupBy: "direction",
      "startTime[gte]": "2026-11-01T00:00:00.000Z",
      direction: "outbound",
      to: "44",
      hangupCause: "NO_ANSWER",
      account: "bg_1",
    });
  });

  it("gives no totals for filters the usage report cannot apply, rather than wider totals", () => {
    for (const f of ["from=1555", "id=4", "uuid=x", "toPrefix=44"])
      expect(usageQueryFromCallQuery(new URLSearchParams(f)), f).toBeNull();
  });
});
