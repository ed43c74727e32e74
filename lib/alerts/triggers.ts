import type { TriggerDeclaration } from "@/lib/db/triggers";

// Balance alerts: one AFTER UPDATE row trigger on billing_groups sees every balance change in the transaction that
// makes it (ingest debit, top-up, re-rating, manual SQL), so the outbox rows (webhook_events, webhook_deliveries)
// commit or roll back with the change itself. A threshold (balance_alert_thresholds) fires when its `crossed` state
// flips: balance.low once per crossing, balance.recovered when the balance rises above it again; `disabled`
// (generated) flipping fires group.disabled / group.enabled. webhook_event_emit builds the event's data and
// webhook_event_emit_data the event and one delivery per matching endpoint (enabled, subscribed to the type; migrations
// 0018, 0025). SQL in migration 0007 (lib/db/triggers.test.ts checks it).

export const ALERT_TRIGGERS: TriggerDeclaration[] = [
  {
    name: "billing_groups_balance_alerts",
    table: "billing_groups",
    definition:
      "CREATE TRIGGER billing_groups_balance_alerts AFTER UPDATE ON public.billing_groups FOR EACH ROW WHEN (((old.balance_micros IS DISTINCT FROM new.balance_micros) OR (old.disabled IS DISTINCT FROM new.disabled))) EXECUTE FUNCTION balance_alerts_on_group_update()",
    migration: "0007_alerts_authorizations.sql",
    functions: [
      { name: "balance_alerts_on_group_update", migration: "0007_alerts_authorizations.sql" },
      { name: "webhook_event_emit", migration: "0025_quality_alerts.sql" },
      { name: "webhook_event_emit_data", migration: "0025_quality_alerts.sql" },
    ],
  },
];
