import { z } from "zod";
import { callDetailSchema, callDetailWithCostSchema } from "@/lib/calls/schemas";
import { defineOperation } from "@/lib/openapi/operation";
import {
  cdrBatchResultSchema,
  cdrBatchSchema,
  freeswitchCdrSchema,
  modJsonCdrBase64Schema,
  modJsonCdrFormSchema,
} from "./api-schemas";
import { nativeCdrSchema } from "./schemas";

// One CDR answers the stored call; a batch answers one result line per CDR.
const ingestAnswerSchema = z.xor([callDetailSchema, callDetailWithCostSchema, cdrBatchResultSchema]);

/** POST /v1/cdrs (docs/contract.md §5; lib/openapi/operation.ts says what each field does). */
export const ingestCdrsOperation = defineOperation({
  operationId: "ingestCdrs",
  method: "POST",
  path: "/v1/cdrs",
  tag: "Ingest",
  summary: "Report completed calls",
  description:
    'A switch reports each completed call: one CDR, or `{ "cdrs": [...] }` with up to 1000. The call is rated ' +
    "and the billing group debited in the same transaction as the insert. Idempotent by `uuid`, which is unique per " +
    "billing group: posting a call again answers 200 with the stored record and debits nothing; a uuid another " +
    "group uses is a different call (never a conflict, never described). A CDR whose destination has no sell rate is " +
    "stored unrated (price 0) and can be re-rated later. For FreeSWITCH mod_json_cdr, which can send nothing else, " +
    "the key may come as the HTTP Basic password (any user name), and the body in the module's `encode` forms: " +
    "`cdr=<URL-encoded JSON>` (application/x-www-form-urlencoded) or `cdr=<base64 JSON>` " +
    "(application/x-www-form-base64-encoded); a form-labelled body that starts with `{` is JSON (the module with " +
    "`disable-100-continue` loses its Content-Type). The 5 MiB limit counts the bytes sent.",
  scope: "cdrs:write",
  basicAuth: true,
  body: z.xor([nativeCdrSchema, freeswitchCdrSchema, cdrBatchSchema]),
  otherBodies: {
    "application/x-www-form-urlencoded": modJsonCdrFormSchema,
    "application/x-www-form-base64-encoded": modJsonCdrBase64Schema,
  },
  responses: {
    201: {
      description:
        "Created: the stored call (single CDR, with a Location header), or the batch result when at least one call was new",
      body: ingestAnswerSchema,
    },
    200: {
      description: "Replay: every call was already stored (header Idempotent-Replayed: true); nothing debited",
      body: ingestAnswerSchema,
    },
  },
  errors: ["conflict", "payload_too_large", "invalid_request_body"],
});

/** The /v1 operations on ingest, in the OpenAPI document's order (gathered by lib/api/operations.ts). */
export const INGEST_OPERATIONS = [ingestCdrsOperation] as const;
