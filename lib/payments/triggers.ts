import type { TriggerDeclaration } from "@/lib/db/triggers";

// Auto-recharge: an AFTER UPDATE row trigger on billing_groups, beside the balance alerts' (lib/alerts/triggers.ts)
// and built the same way: it sees every balance change in the transaction that makes it, flips the group's
// auto_recharge_settings.crossed when the balance falls below the threshold (or rises back), and on each fall queues
// one charge keyed by (group, crossing), so a queued charge commits or rolls back with the debit. The worker
// (lib/payments/auto-recharge-worker.ts) charges it. SQL in migration 0020 (lib/db/triggers.test.ts checks it).

export const PAYMENT_TRIGGERS: TriggerDeclaration[] = [
  {
    name: "billing_groups_auto_recharge",
    table: "billing_groups",
    definition:
      "CREATE TRIGGER billing_groups_auto_recharge AFTER UPDATE ON public.billing_groups FOR EACH ROW WHEN ((old.balance_micros IS DISTINCT FROM new.balance_micros)) EXECUTE FUNCTION auto_recharge_on_group_update()",
    migration: "0020_payments.sql",
    functions: [{ name: "auto_recharge_on_group_update", migration: "0020_payments.sql" }],
  },
];
