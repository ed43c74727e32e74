import { apiRoute } from "@/lib/api/handler";
import { getCallOperation } from "@/lib/calls/operations";
import { callReadsWithHistory } from "@/lib/history/history-call-reads";

export const GET = apiRoute(getCallOperation, ({ db, principal, params }) =>
  callReadsWithHistory(db).getCall(principal, params.id),
);
