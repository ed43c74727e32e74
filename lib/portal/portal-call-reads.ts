import type { Principal } from "@/lib/auth/principal";
import { callPageJson } from "@/lib/calls/call-page";
import type { CallDetail, CallDetailWithCost, CallPage, ListCallsQuery } from "@/lib/calls/schemas";
import type { Executor } from "@/lib/db/client";
import { callReadsWithHistory } from "@/lib/history/history-call-reads";

// The portal's reads of calls (the call log's server-rendered first page, the dashboard's latest calls, a call's own
// page) are the API's: the same history-aware CallReads as GET /v1/calls and /v1/calls/{id} (docs/contract.md
// "History tier"), so a person sees a moved month's calls as a key does. The log's later pages are /v1/calls itself.

/** GET /v1/calls's body for a checked query, parsed: the first page the call log renders on the server. */
export async function portalCallPage(
  db: Executor,
  principal: Principal,
  query: ListCallsQuery,
  origin: string,
): Promise<CallPage> {
  return JSON.parse(await callPageJson(callReadsWithHistory(db), principal, query, origin)) as CallPage;
}

/** GET /v1/calls/{id}'s answer: the call's own page (ApiError not_found for unknown and other accounts' ids). */
export function portalCall(db: Executor, principal: Principal, id: string): Promise<CallDetail | CallDetailWithCost> {
  return callReadsWithHistory(db).getCall(principal, id);
}
