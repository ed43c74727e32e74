import { z } from "zod";
import { filterTextParam, instantParam, pageEnvelope, pageSizeParam } from "@/lib/http/query-params";

/**
 * The Call resource of /v1 (spec 2.1, docs/contract.md §4). These schemas are the single source of the
 * response types and of the OpenAPI document; serialize-call.ts is the only producer.
 */
const money = (description: string) => z.number().describe(`${description} (at most 6 decimals)`);
const isoUtc = (description: string) => z.string().describe(`${description}, ISO 8601 UTC`);

export const callSchema = z
  .object({
    id: z.string().describe("Identifier of the call record, used in GET /v1/calls/{id}"),
    uuid: z.string().describe("Call UUID as reported by the switch"),
    direction: z.enum(["inbound", "outbound"]),
    from: z.string().describe("Caller number (A-number)"),
    to: z.string().describe("Called number (B-number)"),
    startTime: isoUtc("Start of the call"),
    endTime: isoUtc("End of the call"),
    duration: z.number().int().describe("endTime - startTime in whole seconds"),
    billDuration: z.number().int().describe("Billable seconds after the billing increment; 0 when unanswered"),
    pdd: z.number().nullable().describe("Post dial delay in seconds (may be fractional)"),
    hangupCause: z.string().nullable(),
    q850Cause: z.number().int().nullable().describe("Q.850 cause code"),
    readCodec: z.string().nullable().describe("Inbound codec"),
    writeCodec: z.string().nullable().describe("Outbound codec"),
    price: money("Sell price"),
    currency: z.string().describe("ISO 4217 currency code of the billing group"),
    recordingUrl: z.string().nullable().describe("Recording path; null when the call was not recorded"),
    billingGroupId: z.string().describe("Billing group (account) the call belongs to"),
    rated: z.boolean().describe("false when no sell rate matched: price is 0 and the call can be re-rated later"),
  })
  .meta({ id: "Call", description: "A call record as seen by a `calls:read` key" });

/**
 * Present only for keys holding calls:read_cost; absent (not null) otherwise. A caller bound to an account (a
 * reseller) reads its own tier's figures and never supplierId (docs/contract.md §21, "Cost view by tier").
 */
const costFields = {
  buyCost: money(
    "Buy cost: for the platform what the carrier charges (null when no supplier rate applied); for a reseller what it pays its own parent for the call (null on its own calls)",
  ).nullable(),
  margin: money(
    "price - buyCost, exactly (may be negative); null when buyCost is null; a reseller's: what its customer pays it minus buyCost",
  ).nullable(),
  supplierId: z
    .string()
    .nullable()
    .optional()
    .describe("Supplier that carried the call: the platform's view only, absent for a caller bound to an account"),
};

export const callWithCostSchema = callSchema
  .extend(costFields)
  .meta({ id: "CallWithCost", description: "A call record as seen by a `calls:read_cost` key" });

const detailFields = {
  accountcode: z.string().nullable().describe("Account code reported by the switch"),
  networkAddr: z.string().nullable().describe("Network address (IP) the call came from"),
  answerTime: z.string().nullable().describe("Answer time, ISO 8601 UTC; null when unanswered"),
  matchedPrefix: z.string().nullable().describe("Rate card prefix the call was rated with"),
  sellRate: z.number().nullable().describe("Sell rate per minute applied"),
  billingIncrement: z.string().nullable().describe("`minimum/interval` in seconds applied to the sell side"),
  // The parts of `price` (README, rating): price = minChargeApplied ? minCharge : connectFee charged + usageCharge.
  connectFee: z
    .number()
    .nullable()
    .describe("Connect fee of the matched rate (charged only when billDuration > 0); null when none"),
  minCharge: z
    .number()
    .nullable()
    .describe("Minimum charge of the matched rate (applies only when billDuration > 0); null when none"),
  usageCharge: z
    .number()
    .nullable()
    .describe(
      "sellRate x billDuration / 60, rounded half-up to 6 decimals: the per-minute part of price; null when unrated",
    ),
  minChargeApplied: z
    .boolean()
    .describe("true when the minimum charge raised the price above connect fee + usage charge"),
};

export const callDetailSchema = callSchema
  .extend(detailFields)
  .meta({ id: "CallDetail", description: "One call with its full detail, as seen by a `calls:read` key" });

export const callDetailWithCostSchema = callWithCostSchema
  .extend(detailFields)
  .extend({
    buyRate: z
      .number()
      .nullable()
      .describe("Buy rate per minute: the supplier's for the platform, a reseller's own rate from its parent"),
  })
  .meta({ id: "CallDetailWithCost", description: "One call with its full detail, as seen by a `calls:read_cost` key" });

export type Call = z.infer<typeof callSchema>;
export type CallWithCost = z.infer<typeof callWithCostSchema>;
export type CallDetail = z.infer<typeof callDetailSchema>;
export type CallDetailWithCost = z.infer<typeof callDetailWithCostSchema>;

/** The names that must never reach a key without calls:read_cost, in any representation. */
export const COST_FIELD_NAMES = ["buyCost", "margin", "supplierId", "buyRate"] as const;

export const callPageSchema = z
  .object({
    calls: z.array(z.union([callSchema, callWithCostSchema])),
    ...pageEnvelope,
  })
  .meta({ id: "CallPage", description: "One page of calls, newest first" });

export type CallPage = z.infer<typeof callPageSchema>;

// ---- query of GET /v1/calls ----

export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_PAGE_SIZE = 50;

/** A phone number filter: digits, optionally with a leading + (ignored for matching, as in /v1/rates). */
const phoneParam = (description: string) =>
  z
    .string()
    .regex(/^(\+?\d{1,32})?$/, "must be digits, optionally starting with +")
    .optional()
    .describe(description);

export const listCallsQuerySchema = z
  .object({
    pageSize: pageSizeParam({ max: MAX_PAGE_SIZE, fallback: DEFAULT_PAGE_SIZE, items: "Records" }),
    cursor: z.string().optional().describe("Opaque cursor taken from nextPageUrl; pass it unmodified"),
    "startTime[gte]": instantParam(
      "Keep calls started at or after this instant (inclusive); a date alone means 00:00:00Z of that day",
    ),
    "startTime[lte]": instantParam(
      "Keep calls started at or before this instant (inclusive); a date alone means 00:00:00Z of that day",
    ),
    direction: z
      .enum(["inbound", "outbound"], { error: "must be inbound or outbound" })
      .optional()
      .describe("Filter by direction"),
    to: filterTextParam(64, "Literal substring of the called number (`%` and `_` are ordinary characters)"),
    toPrefix: phoneParam("Called number starts with these digits (a leading `+` is ignored)"),
    from: phoneParam(
      "Caller number starts with these digits (a leading `+` is ignored); a full number matches exactly",
    ),
    hangupCause: filterTextParam(64, "Exact hangup cause, case-insensitive"),
    id: z
      .string()
      .regex(/^\d{0,19}$/, "must be a call id (digits)")
      .optional()
      .describe("Exact call id: the listing holds that call when the key may see it and the other filters keep it"),
    uuid: filterTextParam(128, "Exact call UUID as reported by the switch"),
    billingGroupId: filterTextParam(
      64,
      "Calls of this billing group (account) only; for platform keys, which see every group",
    ),
    supplierId: filterTextParam(
      64,
      "Calls carried by this supplier only; needs the `calls:read_cost` scope (403 `insufficient_scope` otherwise)",
    ),
  })
  .superRefine((q, ctx) => {
    const gte = q["startTime[gte]"];
    const lte = q["startTime[lte]"];
    if (gte && lte && Date.parse(gte) > Date.parse(lte)) {
      ctx.addIssue({ code: "custom", path: ["startTime[gte]"], message: "must not be after startTime[lte]" });
    }
  });

export type ListCallsQuery = z.output<typeof listCallsQuerySchema>;
