import { alertsChangeContext } from "@/lib/alerts/endpoint-access";
import { apiRoute } from "@/lib/api/handler";
import { getQualityThresholdsOperation, putQualityThresholdsOperation } from "@/lib/quality/operations";
import { readQualityThresholds, replaceQualityThresholds } from "@/lib/quality/quality-thresholds";

export const GET = apiRoute(getQualityThresholdsOperation, ({ db, principal, query }) =>
  readQualityThresholds(db, principal, query.account || undefined),
);

export const PUT = apiRoute(putQualityThresholdsOperation, ({ db, principal, request, body }) =>
  replaceQualityThresholds(db, principal, body, alertsChangeContext(principal, request)),
);
