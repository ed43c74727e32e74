import { z } from "zod";
import { maxCallSeconds } from "@/lib/config/env";
import { storableText } from "@/lib/db/storable-text";

/** A switch's clock may run ahead of ours, but not by more than this. */
const FUTURE_SLACK_MS = 86_400_000;

const isoTimestamp = z.iso
  .datetime({ offset: true, precision: undefined, abort: true })
  .refine(
    (text) => {
      // Before 1970 or far ahead (year 0000, 9999-12-31T23:00-05:00) is a broken clock, not a call.
      const ms = Date.parse(text);
      return Number.isFinite(ms) && ms >= 0 && ms <= Date.now() + FUTURE_SLACK_MS;
    },
    { message: "must lie between 1970-01-01T00:00:00Z and one day from now" },
  )
  .describe("ISO 8601 timestamp with offset or Z, from 1970 to at most one day ahead of the server's clock");

/** Text fields: see lib/db/storable-text.ts (no NUL, no lone surrogate). */
const shortText = storableText;
export { storableText };

/**
 * A completed call as a switch reports it, in our native JSON (docs/contract.md §5).
 * FreeSWITCH and Asterisk records are mapped to this shape before ingest.
 */
export const nativeCdrSchema = z
  .object({
    uuid: shortText(128),
    direction: z.enum(["inbound", "outbound"]),
    from: shortText(64),
    to: shortText(64),
    startTime: isoTimestamp,
    answerTime: isoTimestamp.nullable().default(null).describe("null when the call was not answered"),
    endTime: isoTimestamp,
    hangupCause: shortText(64).nullable().default(null),
    q850Cause: z.number().int().min(0).max(127).nullable().default(null),
    pdd: z.number().min(0).max(3600).nullable().default(null).describe("post dial delay, seconds"),
    readCodec: shortText(64).nullable().default(null),
    writeCodec: shortText(64).nullable().default(null),
    recordingUrl: storableText(2048).nullable().default(null),
    accountcode: shortText(128).nullable().default(null),
    networkAddr: shortText(128).nullable().default(null),
    billingGroupId: shortText(64).nullable().default(null).describe("or give an accountcode mapped to a group"),
    supplierId: shortText(64).nullable().default(null),
    gateway: shortText(128)
      .nullable()
      .default(null)
      .describe("gateway name mapped to a supplier when supplierId is absent"),
  })
  .superRefine((cdr, ctx) => {
    const start = Date.parse(cdr.startTime);
    const end = Date.parse(cdr.endTime);
    if (end < start) ctx.addIssue({ code: "custom", path: ["endTime"], message: "endTime is before startTime" });
    const max = maxCallSeconds();
    if (end - start > max * 1000) {
      ctx.addIssue({
        code: "custom",
        path: ["endTime"],
        message: `the call lasts longer than ${max} s (MAX_CALL_SECONDS)`,
      });
    }
    if (cdr.answerTime !== null) {
      const answer = Date.parse(cdr.answerTime);
      if (answer < start || answer > end) {
        ctx.addIssue({
          code: "custom",
          path: ["answerTime"],
          message: "answerTime must lie between startTime and endTime",
        });
      }
    }
    if (cdr.billingGroupId === null && cdr.accountcode === null) {
      ctx.addIssue({
        code: "custom",
        path: ["billingGroupId"],
        message: "billingGroupId or an accountcode mapped to a group is required",
      });
    }
  })
  .meta({ id: "NativeCdr" });

export type NativeCdr = z.output<typeof nativeCdrSchema>;
export type NativeCdrInput = z.input<typeof nativeCdrSchema>;
