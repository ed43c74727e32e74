import { z } from "zod";

const isoTimestamp = z.iso.datetime({ offset: true, precision: undefined }).describe("ISO 8601 timestamp with offset or Z");
const shortText = (max: number) => z.string().trim().min(1).max(max);

/**
 * A completed call as a switch reports it, in our native JSON (CONTRACT section 5).
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
    recordingUrl: z.string().trim().min(1).max(2048).nullable().default(null),
    accountcode: shortText(128).nullable().default(null),
    networkAddr: shortText(128).nullable().default(null),
    billingGroupId: shortText(64).nullable().default(null).describe("or give an accountcode mapped to a group"),
    supplierId: shortText(64).nullable().default(null),
    gateway: shortText(128).nullable().default(null).describe("gateway name mapped to a supplier when supplierId is absent"),
  })
  .superRefine((cdr, ctx) => {
    const start = Date.parse(cdr.startTime);
    const end = Date.parse(cdr.endTime);
    if (end < start) ctx.addIssue({ code: "custom", path: ["endTime"], message: "endTime is before startTime" });
    if (cdr.answerTime !== null) {
      const answer = Date.parse(cdr.answerTime);
      if (answer < start || answer > end) {
        ctx.addIssue({ code: "custom", path: ["answerTime"], message: "answerTime must lie between startTime and endTime" });
      }
    }
    if (cdr.billingGroupId === null && cdr.accountcode === null) {
      ctx.addIssue({ code: "custom", path: ["billingGroupId"], message: "billingGroupId or an accountcode mapped to a group is required" });
    }
  })
  .meta({ id: "NativeCdr" });

export type NativeCdr = z.output<typeof nativeCdrSchema>;
export type NativeCdrInput = z.input<typeof nativeCdrSchema>;
