import { apiRoute } from "@/lib/api/handler";
import { changeContextOf } from "@/lib/billing/change-context";
import { putLimits, readLimits } from "@/lib/limits/manage-limits";
import { getLimitsOperation, putLimitsOperation } from "@/lib/limits/operations";

// GET/PUT /v1/limits (docs/contract.md "Limits"): an account's limits, which POST /v1/authorizations enforces.
export const GET = apiRoute(getLimitsOperation, ({ db, principal, query }) =>
  readLimits(db, principal, query.account || undefined),
);

export const PUT = apiRoute(putLimitsOperation, ({ db, principal, request, body }) =>
  putLimits(db, principal, body, changeContextOf(principal, request)),
);
