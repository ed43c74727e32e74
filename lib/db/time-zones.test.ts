import { expect, it } from "vitest";
import { ApiError } from "@/lib/errors/api-error";
import { testPrincipal } from "@/lib/testing/test-principal";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { recordingDb } from "@/lib/testing/recording-db";
import { summarizeUsage } from "@/lib/usage/summarize-usage";
import { usageQuerySchema } from "@/lib/usage/schemas";
import { isDatabaseTimeZone } from "./time-zones";

describeOnEngines("time zones the database knows", (handle, engine) => {
  it("knows IANA names in any case, not a name only Node's Intl still has, and reads them once", async () => {
    const { db, log } = await recordingDb(handle(), engine);
    expect(await isDatabaseTimeZone(db, "Europe/London")).toBe(true);
    expect(await isDatabaseTimeZone(db, "europe/london")).toBe(true);
    expect(await isDatabaseTimeZone(db, "UTC")).toBe(true);
    expect(await isDatabaseTimeZone(db, "Asia/Kathmandu")).toBe(true);
    // Intl takes it (the schema passes it on); the database does not know it (AT TIME ZONE fails with 22023).
    expect(usageQuerySchema.safeParse({ timeZone: "US/Pacific-New" }).success).toBe(true);
    expect(await isDatabaseTimeZone(db, "US/Pacific-New")).toBe(false);
    expect(log.filter((s) => s.query.includes("pg_timezone_names"))).toHaveLength(1);
  });

  it("makes GET /v1/usage answer invalid_parameter naming timeZone, not a database error", async () => {
    const error = await summarizeUsage(
      handle().db,
      testPrincipal(null, ["calls:read"]),
      {},
      {
        groupBy: "day",
        timeZone: "US/Pacific-New",
      },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("invalid_parameter");
    expect((error as ApiError).errors?.map((e) => e.param)).toEqual(["timeZone"]);
  });
});
