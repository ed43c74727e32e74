import { z } from "zod";
import { cdrBatchResultSchema, cdrResultSchema, MAX_CDRS_PER_REQUEST } from "@/lib/ingest/api-schemas";
import { nativeCdrSchema } from "@/lib/ingest/schemas";
import type { OpenApiHelpers, OpenApiOperation } from "./openapi-types";

/**
 * POST /v1/cdrs in the OpenAPI document. Kept apart from openapi.ts because its schemas belong to
 * the ingest module; this file only points at them.
 */
const freeswitchCdrSchema = z
  .object({ variables: z.record(z.string(), z.unknown()).describe("Channel variables of mod_json_cdr") })
  .catchall(z.unknown())
  .meta({
    id: "FreeswitchCdr",
    description: "A FreeSWITCH mod_json_cdr document, recognised by its `variables` object",
  });

const cdrBatchSchema = z
  .object({
    cdrs: z
      .array(z.union([nativeCdrSchema, freeswitchCdrSchema]))
      .min(1)
      .max(MAX_CDRS_PER_REQUEST),
  })
  .meta({ id: "CdrBatch", description: `Up to ${MAX_CDRS_PER_REQUEST} CDRs in one request` });

export const OPENAPI_INGEST = {
  requestSchemas: [nativeCdrSchema, freeswitchCdrSchema, cdrBatchSchema] as z.ZodType[],
  responseSchemas: [cdrResultSchema, cdrBatchResultSchema] as z.ZodType[],
  paths({ ok, commonErrors, oneOf, ref }: OpenApiHelpers): Record<string, Record<string, OpenApiOperation>> {
    // One CDR answers the stored call; a batch answers one result line per CDR.
    const answer = { oneOf: [ref("CallDetail"), ref("CallDetailWithCost"), ref("CdrBatchResult")] };
    return {
      "/v1/cdrs": {
        post: {
          operationId: "ingestCdrs",
          summary: "Report completed calls",
          description:
            'A switch reports each completed call: one CDR, or `{ "cdrs": [...] }` with up to 1000. The call is rated ' +
            "and the billing group debited in the same transaction as the insert. Idempotent by `uuid`, which is unique per " +
            "billing group: posting a call again answers 200 with the stored record and debits nothing; a uuid another " +
            "group uses is a different call (never a conflict, never described). A CDR whose destination has no sell rate is " +
            "stored unrated (price 0) and can be re-rated later.",
          tags: ["Ingest"],
          "x-scope": "cdrs:write",
          requestBody: {
            required: true,
            content: { "application/json": { schema: oneOf("NativeCdr", "FreeswitchCdr", "CdrBatch") } },
          },
          responses: {
            ...ok(
              "Created: the stored call (single CDR, with a Location header), or the batch result when at least one call was new",
              answer,
              "201",
            ),
            ...ok("Replay: every call was already stored (header Idempotent-Replayed: true); nothing debited", answer),
            ...commonErrors({ "409": ["conflict"], "413": ["payload_too_large"], "422": ["invalid_body"] }),
          },
        },
      },
    };
  },
};
