import { apiRoute } from "@/lib/api/handler";
import { getCall } from "@/lib/calls/get-call";

export const GET = apiRoute<undefined, { id: string }>({ scope: "calls:read" }, ({ db, principal, params }) =>
  getCall(db, principal, params.id),
);
