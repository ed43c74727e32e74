import { z } from "zod";
import { nativeCdrSchema } from "./schemas";

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

// The request body of POST /v1/cdrs as the document describes it; ingest-request.ts reads the body itself
// (a document with `variables` is mapped from FreeSWITCH, anything else parsed as nativeCdrSchema).
export const freeswitchCdrSchema = z
  .object({ variables: z.record(z.string(), z.unknown()).describe("Channel variables of mod_json_cdr") })
  .catchall(z.unknown())
  .meta({
    id: "FreeswitchCdr",
    description: "A FreeSWITCH mod_json_cdr document, recognised by its `variables` object",
  });

export const cdrBatchSchema = z
  .object({
    cdrs: z
      .array(z.union([nativeCdrSchema, freeswitchCdrSchema]))
      .min(1)
      .max(MAX_CDRS_PER_REQUEST),
  })
  .meta({ id: "CdrBatch", description: `Up to ${MAX_CDRS_PER_REQUEST} CDRs in one request` });

// FreeSWITCH mod_json_cdr's own encodings of that body (json_cdr.conf.xml `encode`; lib/ingest/cdr-body.ts reads them).
export const modJsonCdrFormSchema = z.object({
  cdr: z.string().describe("The CDR JSON (one CDR or a batch), URL-encoded: mod_json_cdr with encode=true"),
});

export const modJsonCdrBase64Schema = z
  .string()
  .describe("`cdr=` and the CDR JSON in base64, as mod_json_cdr posts it with encode=base64");
