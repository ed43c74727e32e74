import { apiRoute } from "@/lib/api/handler";
import { getCall } from "@/lib/calls/get-call";
import { getCallOperation } from "@/lib/calls/operations";

export const GET = apiRoute(getCallOperation, ({ db, principal, params }) => getCall(db, principal, params.id));
