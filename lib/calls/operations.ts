import { z } from "zod";
import { serialIdSchema } from "@/lib/ids/ids";
import { defineOperation } from "@/lib/openapi/operation";
import { callDetailSchema, callDetailWithCostSchema, callPageSchema, listCallsQuerySchema } from "./schemas";

/** The /v1 operations on calls (routes in app/v1/calls; lib/openapi/operation.ts says what each field does). */

export const listCallsOperation = defineOperation({
  operationId: "listCalls",
  method: "GET",
  path: "/v1/calls",
  tag: "Calls",
  summary: "List calls",
  description:
    "Calls newest first (`startTime` descending, then `id` descending), paged with an opaque cursor. " +
    "Follow `nextPageUrl` with the same Authorization header until `meta.hasMore` is false; it carries every " +
    "filter and `pageSize` of the request. A cursor is signed and bound to the filters and key it was issued " +
    "for. Paging never repeats or skips a call, even while new calls arrive. Cost fields are present only for " +
    "`calls:read_cost` keys.",
  scope: "calls:read",
  query: listCallsQuerySchema,
  responses: { 200: { description: "A page of calls", body: callPageSchema } },
  errors: ["invalid_cursor"],
});

export const exportCallsOperation = defineOperation({
  operationId: "exportCalls",
  method: "GET",
  path: "/v1/calls/export",
  tag: "Calls",
  summary: "Export calls as CSV",
  description:
    "Every call matching the filters of `GET /v1/calls`, newest first, streamed as one CSV download. " +
    "The cost columns are present only for `calls:read_cost` keys.",
  scope: "calls:read",
  // The query of GET /v1/calls, paging included: checked the same, though an export has no pages.
  query: listCallsQuerySchema,
  undocumentedQuery: ["cursor", "pageSize"],
  responses: { 200: { description: "CSV with a header row", body: z.string(), contentType: "text/csv" } },
});

export const getCallOperation = defineOperation({
  operationId: "getCall",
  method: "GET",
  path: "/v1/calls/{id}",
  tag: "Calls",
  summary: "Get one call",
  description:
    "One call with its full detail: the list fields plus `accountcode`, `networkAddr`, `billingGroupId`, " +
    "`answerTime`, `rated`, `matchedPrefix`, `sellRate`, `billingIncrement`, and for `calls:read_cost` keys the " +
    "cost fields and `buyRate`. Another group's call answers 404, like an unknown id.",
  scope: "calls:read",
  params: z.object({ id: serialIdSchema("Call id, from the `id` field of a call") }),
  responses: { 200: { description: "The call", body: z.xor([callDetailSchema, callDetailWithCostSchema]) } },
});

/** The /v1 operations on calls, in the OpenAPI document's order (gathered by lib/api/operations.ts). */
export const CALL_OPERATIONS = [listCallsOperation, exportCallsOperation, getCallOperation] as const;
