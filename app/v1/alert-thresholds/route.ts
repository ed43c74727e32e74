import { alertsChangeContext } from "@/lib/alerts/endpoint-access";
import { readThresholds, replaceThresholds } from "@/lib/alerts/manage-thresholds";
import { getAlertThresholdsOperation, putAlertThresholdsOperation } from "@/lib/alerts/operations";
import { parseAlertsBody, thresholdsBodySchema } from "@/lib/alerts/schemas";
import { apiRoute } from "@/lib/api/handler";
import { readJsonBody } from "@/lib/http/body";

export const GET = apiRoute(getAlertThresholdsOperation, ({ db, principal, query }) =>
  readThresholds(db, principal, query.account || undefined),
);

export const PUT = apiRoute(putAlertThresholdsOperation, async ({ db, principal, request }) => {
  const body = parseAlertsBody(thresholdsBodySchema, await readJsonBody(request, { code: "invalid_request_body" }));
  return replaceThresholds(db, principal, body, alertsChangeContext(principal, request));
});
