import { z } from "zod";
import { listCallsQuerySchema } from "@/lib/calls/schemas";

/**
 * GET /v1/usage: call counts and money aggregated over the filters of GET /v1/calls, grouped by one
 * dimension. These schemas are the single source of the response type and of the OpenAPI document;
 * serialize-usage.ts is the only producer, so cost fields exist only for calls:read_cost keys.
 */

export const USAGE_GROUP_BY = [
  "day",
  "month",
  "destination",
  "direction",
  "hangupCause",
  "account",
  "supplier",
] as const;
export type UsageGroupBy = (typeof USAGE_GROUP_BY)[number];
/** Dimensions that bucket by time in `timeZone`. */
export const TIME_GROUP_BY: ReadonlySet<UsageGroupBy> = new Set(["day", "month"]);

const money = (description: string) => z.number().describe(`${description} (at most 6 decimals)`);

const usageFigures = {
  calls: z.number().int().describe("Calls"),
  answeredCalls: z.number().int().describe("Calls with an answer time"),
  unratedCalls: z
    .number()
    .int()
    .describe("Calls stored without a sell rate (price 0 until re-rated); included in `calls`"),
  billedSeconds: z.number().int().describe("Sum of `billDuration`"),
  price: money("Sum of the sell price"),
};

/** Present only for keys holding calls:read_cost; absent (not null) otherwise. */
const usageCostFigures = {
  buyCost: money(
    "Sum of the buy cost of the calls that have one: the carrier's for the platform, the caller's own tier charges for a reseller",
  ),
  margin: money(
    "Sum of the calls' `margin` (the platform: `price - buyCost`; a reseller: what its children pay it minus its buyCost)",
  ),
};

const rowKey = {
  key: z
    .string()
    .nullable()
    .describe(
      "Value of the `groupBy` dimension: `YYYY-MM-DD` (day) or `YYYY-MM` (month) in `timeZone`, the matched rate-card " +
        "prefix (destination; null for unrated calls), `inbound`/`outbound`, the hangup cause in upper case (null when " +
        "none), the billing group id (account), the supplier id (supplier; null when none)",
    ),
  label: z
    .string()
    .nullable()
    .describe(
      "Human name of the key when one exists: the prefix's description on the rate card, the group's or supplier's name",
    ),
  currency: z.string().describe("ISO 4217 currency of the figures; amounts of different currencies are never added"),
};

export const usageRowSchema = z
  .object({ ...rowKey, ...usageFigures })
  .meta({ id: "UsageRow", description: "One group of calls as seen by a `calls:read` key" });
export const usageRowWithCostSchema = usageRowSchema
  .extend(usageCostFigures)
  .meta({ id: "UsageRowWithCost", description: "One group of calls as seen by a `calls:read_cost` key" });

export const usageTotalSchema = z
  .object({ currency: rowKey.currency, ...usageFigures })
  .meta({ id: "UsageTotal", description: "Sum of the rows of one currency (`calls:read` key)" });
export const usageTotalWithCostSchema = usageTotalSchema
  .extend(usageCostFigures)
  .meta({ id: "UsageTotalWithCost", description: "Sum of the rows of one currency (`calls:read_cost` key)" });

export const usageReportSchema = z
  .object({
    groupBy: z.enum(USAGE_GROUP_BY),
    timeZone: z.string().describe("IANA time zone the day and month buckets were cut in"),
    rows: z
      .array(z.union([usageRowSchema, usageRowWithCostSchema]))
      .describe("One row per (key, currency); time keys ascending, other keys ascending with null last"),
    totals: z
      .array(z.union([usageTotalSchema, usageTotalWithCostSchema]))
      .describe("One entry per currency present in rows, ascending by currency"),
  })
  .meta({ id: "UsageReport", description: "Usage aggregated over the filters of GET /v1/calls" });

export type UsageRow = z.infer<typeof usageRowSchema>;
export type UsageRowWithCost = z.infer<typeof usageRowWithCostSchema>;
export type UsageTotal = z.infer<typeof usageTotalSchema>;
export type UsageTotalWithCost = z.infer<typeof usageTotalWithCostSchema>;
export type UsageReport = z.infer<typeof usageReportSchema>;

// ---- query of GET /v1/usage ----

/** true when Intl knows the zone (IANA names, e.g. Europe/London; also "UTC"). */
export function isValidTimeZone(zone: string): boolean {
  // Names only: PostgreSQL would read POSIX strings such as "UTC+5" with the sign inverted.
  if (zone.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const callFilterShape = listCallsQuerySchema.shape;
const CALL_FILTERS = {
  "startTime[gte]": callFilterShape["startTime[gte]"],
  "startTime[lte]": callFilterShape["startTime[lte]"],
  direction: callFilterShape.direction,
  to: callFilterShape.to,
  toPrefix: callFilterShape.toPrefix,
  from: callFilterShape.from,
  hangupCause: callFilterShape.hangupCause,
  id: callFilterShape.id,
  uuid: callFilterShape.uuid,
  billingGroupId: callFilterShape.billingGroupId,
  supplierId: callFilterShape.supplierId,
};
const CALL_FILTER_NAMES = Object.keys(CALL_FILTERS) as (keyof typeof CALL_FILTERS)[];

export const usageQuerySchema = z
  .object({
    groupBy: z
      .enum(USAGE_GROUP_BY, { error: `must be one of ${USAGE_GROUP_BY.join(", ")}` })
      .optional()
      .default("day")
      .describe("Dimension to group by; `supplier` needs the `calls:read_cost` scope"),
    timeZone: z
      .string()
      .refine(isValidTimeZone, "must be an IANA time zone name such as Europe/London")
      .optional()
      .default("UTC")
      .describe(
        "IANA time zone of the `day` and `month` buckets (daylight saving days have 23 or 25 hours); a name the database's time zone data also knows",
      ),
    // The same schema as billingGroupId (its own, looser one let a NUL through to SQL: a 500).
    account: callFilterShape.billingGroupId.describe(
      "Another name for `billingGroupId`: calls of this billing group only (a bound key asking for another group gets an empty report)",
    ),
    // The filters of GET /v1/calls, the same validation (imported, not copied).
    ...CALL_FILTERS,
  })
  .superRefine((q, ctx) => {
    // Cross-field rules of the calls filters (e.g. gte <= lte) come from the calls schema itself.
    if (q.account && q.billingGroupId && q.account !== q.billingGroupId) {
      ctx.addIssue({ code: "custom", path: ["account"], message: "must equal billingGroupId when both are given" });
    }
    const calls = listCallsQuerySchema.safeParse(Object.fromEntries(CALL_FILTER_NAMES.map((name) => [name, q[name]])));
    if (calls.success) return;
    for (const issue of calls.error.issues) {
      // zod runs this refinement even when a field failed on its own: that issue is already reported.
      const field = String(issue.path[0]) as keyof typeof callFilterShape;
      if (field in callFilterShape && !callFilterShape[field].safeParse(q[field as keyof typeof q]).success) continue;
      ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    }
  });

export type UsageQuery = z.output<typeof usageQuerySchema>;
