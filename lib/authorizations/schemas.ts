import { z } from "zod";
import { storable } from "@/lib/db/storable-text";

/** POST /v1/authorizations: a call about to be connected asks how long it may last. */
export const authorizationRequestSchema = z
  .object({
    uuid: storable(z.string().min(1).max(255)).describe(
      "The call's uuid: the CDR posted when it ends carries the same one and settles this authorization",
    ),
    billingGroupId: storable(z.string().min(1).max(64))
      .optional()
      .describe("Group to charge; required for platform keys, optional (its own) for bound keys"),
    destination: z
      .string()
      .regex(/^\+?\d{1,32}$/, "must be 1-32 digits with an optional leading +")
      .describe("Dialled number: digits, optional leading `+` (ignored for matching)"),
    from: storable(z.string().max(64)).optional().describe("Caller number, kept for the record"),
    maxDurationSeconds: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        "Longest duration wanted (e.g. the switch's own cap); the grant never exceeds it. Default and ceiling: MAX_CALL_SECONDS",
      ),
  })
  .strict()
  .meta({ id: "AuthorizationRequest" });

export type AuthorizationRequest = z.output<typeof authorizationRequestSchema>;

export const authorizationSchema = z
  .object({
    uuid: z.string(),
    billingGroupId: z.string(),
    destination: z.string(),
    from: z.string().nullable(),
    status: z
      .enum(["active", "settled", "expired"])
      .describe(
        "active: holding its reservation; settled: the call's CDR arrived (charged once, the rest released); expired: the TTL passed first",
      ),
    maxDurationSeconds: z
      .number()
      .int()
      .describe(
        "Longest the call may last: the price of maxDurationSeconds + 1 s (see `reserved`) fits the available balance",
      ),
    reserved: z
      .number()
      .describe(
        "Amount held while active: the price of a call of maxDurationSeconds + 1 s, since ingest rounds the answered " +
          "time up (a call cut at maxDurationSeconds, measured a fraction above it, bills one second more); at most 6 decimals",
      ),
    currency: z.string(),
    matchedPrefix: z.string(),
    sellRate: z.number().describe("Sell rate per minute"),
    billingIncrement: z.string().describe("`minimum/interval` in seconds"),
    createdAt: z.string().describe("ISO 8601"),
    expiresAt: z.string().describe("ISO 8601: the reservation lapses here if no CDR settled it"),
    settledAt: z.string().nullable(),
    callId: z.string().nullable().describe("Id of the call that settled it"),
  })
  .meta({ id: "Authorization", description: "A reservation of balance for a call in progress" });

export type Authorization = z.infer<typeof authorizationSchema>;
