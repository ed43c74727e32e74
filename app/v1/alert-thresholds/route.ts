import { alertsChangeContext } from "@/lib/alerts/endpoint-access";
import { readThresholds, replaceThresholds } from "@/lib/alerts/manage-thresholds";
import { getAlertThresholdsOperation, putAlertThresholdsOperation } from "@/lib/alerts/operations";
import { apiRoute } from "@/lib/api/handler";

export const GET = apiRoute(getAlertThresholdsOperation, ({ db, principal, query }) =>
  readThresholds(db, principal, query.account || undefined),
);

export const PUT = apiRoute(putAlertThresholdsOperation, async ({ db, principal, request, body }) => {
  return replaceThresholds(db, principal, body, alertsChangeContext(principal, request));
});
