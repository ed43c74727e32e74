import { platformChangeContext } from "@/lib/billing/change-context";
import { eraseAccountCalls } from "@/lib/history/erase-calls";
import { processHistoryStore } from "@/lib/history/history-call-reads";
import { eraseAccountCallsOperation } from "@/lib/history/operations";
import { apiRoute } from "@/lib/api/handler";

// POST /v1/accounts/{id}/erase-calls: the account's calls erased in both tiers on request (platform keys, audited).
export const POST = apiRoute(eraseAccountCallsOperation, async ({ db, principal, params, request, body }) => {
  const by = platformChangeContext(principal, request);
  const before = body.before === undefined ? undefined : new Date(body.before);
  return eraseAccountCalls(db, processHistoryStore(), params.id, { before }, by);
});
