import { apiRoute, jsonText } from "@/lib/api/handler";
import { publicBaseUrl } from "@/lib/config/env";
import { callPageJson } from "@/lib/calls/call-page";
import { listCallsOperation } from "@/lib/calls/operations";
import { callReadsWithHistory } from "@/lib/history/history-call-reads";
import { pageOrigin } from "@/lib/http/next-page-link";

export const GET = apiRoute(listCallsOperation, async ({ readDb, principal, query, request }) =>
  jsonText(
    await callPageJson(callReadsWithHistory(await readDb()), principal, query, pageOrigin(request, publicBaseUrl())),
  ),
);
