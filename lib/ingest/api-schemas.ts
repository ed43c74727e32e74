import { z } from "zod";

/** One line of the batch answer of POST /v1/cdrs, in the order of the request. */
export const cdrResultSchema = z
  .object({
    index: z.number().int().describe("Position of the CDR in the request's `cdrs` array"),
    uuid: z.string(),
    status: z
      .enum(["created", "duplicate"])
      .describe("created: stored and debited now; duplicate: already stored, nothing debited"),
    id: z.string().describe("Call id, for GET /v1/calls/{id}"),
    rated: z.boolean().describe("false: no sell rate matched; stored with price 0, not debited, re-rated later"),
    price: z.number().describe("Sell price of the call (at most 6 decimals)"),
    currency: z.string(),
  })
  .meta({ id: "CdrResult" });

export const cdrBatchResultSchema = z
  .object({
    object: z.literal("cdr_batch"),
    results: z.array(cdrResultSchema),
    summary: z.object({
      received: z.number().int(),
      created: z.number().int(),
      duplicate: z.number().int(),
      unrated: z.number().int().describe("Created without a sell rate"),
    }),
  })
  .meta({
    id: "CdrBatchResult",
    description:
      "Answer to a batch `{ cdrs: [...] }`: HTTP 201 when at least one call was created, else 200 (a pure replay).",
  });

export type CdrResult = z.infer<typeof cdrResultSchema>;
export type CdrBatchResult = z.infer<typeof cdrBatchResultSchema>;

/** At most this many CDRs in one request (docs/contract.md §5). */
export const MAX_CDRS_PER_REQUEST = 1000;
