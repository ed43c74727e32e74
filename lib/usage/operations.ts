import { defineOperation } from "@/lib/openapi/operation";
import { usageQuerySchema, usageReportSchema } from "./schemas";

/** GET /v1/usage (lib/openapi/operation.ts says what each field does). */
export const summarizeUsageOperation = defineOperation({
  operationId: "summarizeUsage",
  method: "GET",
  path: "/v1/usage",
  tag: "Calls",
  summary: "Usage aggregated by day, month, destination, direction, hangup cause, account or supplier",
  description:
    "Calls, answered calls, unrated calls, billed seconds and price summed over the calls matching the filters of " +
    "`GET /v1/calls`, one row per value of `groupBy` and currency (amounts of different currencies are never added; " +
    "`totals` has one entry per currency). Sums are exact and equal the sums over every page of `GET /v1/calls` " +
    "with the same filters. `day` and `month` are cut in `timeZone` (daylight saving days have 23 or 25 hours). " +
    "`buyCost` and `margin` are present only for `calls:read_cost` keys: the platform's are the carrier's cost and " +
    "the margin over it; a reseller's (a key of an account with children) are its own, what it pays its parent for " +
    "its subtree's calls and what its children pay it minus that (none on its own calls); a customer without children " +
    "gets neither. `groupBy=supplier` is the platform's (403 otherwise). `account` (or `billingGroupId`) narrows a platform key to one group; a bound key asking for " +
    "another group gets an empty report, as `GET /v1/calls` gives it no calls. Answered from rollups kept by the " +
    "ingest transaction; the filters about single numbers or calls (`to`, `toPrefix`, `from`, `id`, `uuid`) are " +
    "answered from the calls themselves and are slower.",
  scope: "calls:read",
  query: usageQuerySchema,
  responses: { 200: { description: "The usage report", body: usageReportSchema } },
});

/** The /v1 operations on usage, in the OpenAPI document's order (gathered by lib/api/operations.ts). */
export const USAGE_OPERATIONS = [summarizeUsageOperation] as const;
