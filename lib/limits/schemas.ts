import { z } from "zod";
import { pageEnvelope, pageSizeParam } from "@/lib/http/query-params";
import { idFilterSchema, idSchema } from "@/lib/ids/ids";
import { decimalMoney } from "@/lib/money/decimal-money";

// The limits of an account (docs/contract.md "Limits"): what POST /v1/authorizations enforces. An account has a layer
// of them per setter, the operator's, its reseller's (provider) and the customer's; every rule of each holds.

const MAX_PREFIXES = 500;
const MAX_WINDOW_SECONDS = 86_400;

const prefixList = (what: string) =>
  z
    .array(z.string().regex(/^\d{1,15}$/, "must be 1-15 digits (a country code, a range: `44`, `4490`)"))
    .max(MAX_PREFIXES, `at most ${MAX_PREFIXES} prefixes`)
    .transform((list) => [...new Set(list)].sort())
    .describe(what);

const count = (what: string) => z.number().int().min(0).max(1_000_000).nullable().default(null).describe(what);

const windowRuleBody = z.strictObject({
  max: z.number().int().min(1).max(1_000_000),
  windowSeconds: z.number().int().min(1).max(MAX_WINDOW_SECONDS).describe("The sliding window, in seconds"),
});

/** One layer as a request sets it: absent and null are "no limit" (a PUT replaces the caller's whole layer). */
export const limitsBodySchema = z
  .strictObject({
    billingGroupId: idSchema("bg", "The account (platform callers; a group's caller may name its own only)").optional(),
    maxConcurrentCalls: count("Calls in progress at once: from the authorization until its CDR or its expiry"),
    callsPerSecond: count("Authorizations granted in any one-second window"),
    dailySpend: decimalMoney("50.00")
      .nullable()
      .default(null)
      .describe("Spend per day in the account's time zone: settled prices plus open reservations (decimal string)"),
    monthlySpend: decimalMoney("1000.00")
      .nullable()
      .default(null)
      .describe("Spend per calendar month in the account's time zone, as dailySpend (decimal string)"),
    blockedPrefixes: prefixList("Destinations starting with any of these are refused (premium ranges, countries)")
      .optional()
      .default([]),
    allowedPrefixes: prefixList("When set, only destinations starting with one of these are authorized")
      .nullable()
      .default(null),
    distinctDestinations: windowRuleBody
      .nullable()
      .default(null)
      .describe("At most `max` distinct destinations per sliding window"),
    callsPerPrefix: windowRuleBody
      .nullable()
      .default(null)
      .describe("At most `max` calls to one rated prefix (the rate card's matched prefix) per sliding window"),
    disableOnFraud: z
      .boolean()
      .default(false)
      .describe(
        "The operator's option: a fraud rule's crossing (a destination or velocity rule) also disables the account " +
          "(audited `account.disabled`; PATCH /v1/accounts/{id} with `disabled: false` enables it again)",
      ),
  })
  .meta({ id: "LimitsRequest", description: "The caller's layer of an account's limits, replaced as a whole" });

export type LimitsBody = z.output<typeof limitsBodySchema>;

const windowRule = z.object({ max: z.number().int(), windowSeconds: z.number().int() });

export const limitLayerSchema = z
  .object({
    maxConcurrentCalls: z.number().int().nullable(),
    callsPerSecond: z.number().int().nullable(),
    dailySpend: z.number().nullable().describe("In the account's currency"),
    monthlySpend: z.number().nullable().describe("In the account's currency"),
    blockedPrefixes: z.array(z.string()),
    allowedPrefixes: z.array(z.string()).nullable(),
    distinctDestinations: windowRule.nullable(),
    callsPerPrefix: windowRule.nullable(),
    disableOnFraud: z.boolean().describe("A fraud rule's crossing disables the account (the operator's layer only)"),
  })
  .meta({ id: "LimitLayer", description: "One layer of an account's limits; null: no limit" });

export const limitsSchema = z
  .object({
    billingGroupId: z.string(),
    currency: z.string(),
    timeZone: z.string().describe("The zone of the daily and monthly spend"),
    operator: limitLayerSchema.describe("Set by the operator (platform keys and staff)"),
    provider: limitLayerSchema
      .nullable()
      .describe(
        "For a reseller above the account (its keys and people): its own layer, the one its PUT replaces; for anyone " +
          "else the account's parent's. null for an account without a parent",
      ),
    providers: z
      .array(
        limitLayerSchema.extend({
          depth: z.number().int().describe("1: the account's parent reseller; 2: the reseller above that one; …"),
        }),
      )
      .describe(
        "Every reseller's layer on the account, nearest first (one per reseller above it, no limits where one set " +
          "none): each may only tighten the operator's and those further up, and all of them hold",
      ),
    customer: limitLayerSchema.describe(
      "Set by the customer's owners and admins: may only tighten the operator's and every provider's",
    ),
    usage: z.object({
      concurrentCalls: z.number().int().describe("Authorizations active now (neither settled nor expired)"),
      openReservations: z.number().describe("Amount those hold"),
      settledToday: z.number().describe("Prices of today's calls (account's time zone), authorized or not"),
      settledThisMonth: z.number().describe("Prices of this month's calls"),
    }),
  })
  .meta({ id: "Limits", description: "An account's limits, every layer, and what counts against them now" });

export type Limits = z.output<typeof limitsSchema>;

export const limitsQuerySchema = z.object({
  account: idFilterSchema("bg", "The account (platform callers: required)"),
});

export const REFUSAL_CODES = [
  "concurrent_calls_limit",
  "calls_per_second_limit",
  "daily_spend_limit",
  "monthly_spend_limit",
  "destination_blocked",
  "destination_not_allowed",
  "velocity_limit",
] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];

export const refusalSchema = z.object({
  id: z.string(),
  billingGroupId: z.string(),
  uuid: z.string().describe("The call's uuid as the switch sent it"),
  destination: z.string(),
  code: z.enum(REFUSAL_CODES).describe("The error code the switch was answered"),
  limit: z.string().describe("The limit's field in Limits (`maxConcurrentCalls`)"),
  limitValue: z.string().describe("The limit's value then"),
  currentValue: z.string().describe("What counted against it then"),
  detail: z.string(),
  createdAt: z.string().describe("ISO 8601"),
});

export const refusalPageSchema = z
  .object({ refusals: z.array(refusalSchema), ...pageEnvelope })
  .meta({ id: "AuthorizationRefusalPage", description: "Authorizations a limit refused, newest first" });

export type Refusal = z.output<typeof refusalSchema>;
export type RefusalPage = z.output<typeof refusalPageSchema>;

export const listRefusalsQuerySchema = z.object({
  pageSize: pageSizeParam({ max: 1000, fallback: 50, items: "Refusals" }),
  cursor: z.string().optional().describe("Opaque cursor taken from nextPageUrl; pass it unmodified"),
  account: idFilterSchema("bg", "One account's refusals (platform callers; a group's caller sees its own only)"),
});

export type ListRefusalsQuery = z.output<typeof listRefusalsQuerySchema>;
