import { apiRoute } from "@/lib/api/handler";
import { callReads } from "@/lib/calls/call-store";
import { getCallOperation } from "@/lib/calls/operations";

export const GET = apiRoute(getCallOperation, ({ db, principal, params }) =>
  callReads(db).getCall(principal, params.id),
);
