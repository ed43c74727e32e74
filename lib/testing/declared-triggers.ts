import { ALERT_TRIGGERS } from "@/lib/alerts/triggers";
import { AUDIT_TRIGGERS } from "@/lib/audit/triggers";
import { AUTH_TRIGGERS } from "@/lib/auth/triggers";
import { AUTHORIZATION_TRIGGERS } from "@/lib/authorizations/triggers";
import { LEDGER_TRIGGERS } from "@/lib/billing/triggers";
import type { TriggerDeclaration } from "@/lib/db/triggers";
import { INVOICE_TRIGGERS } from "@/lib/invoices/triggers";
import { PAYMENT_TRIGGERS } from "@/lib/payments/triggers";
import { USAGE_TRIGGERS } from "@/lib/usage/triggers";

/**
 * Every concept's declared triggers (lib/<concept>/triggers.ts). lib/db/triggers.test.ts holds them to the migrated
 * database on both engines: a trigger of the database that none declares fails it.
 */
export const DECLARED_TRIGGERS: readonly TriggerDeclaration[] = [
  ...AUTH_TRIGGERS,
  ...USAGE_TRIGGERS,
  ...AUTHORIZATION_TRIGGERS,
  ...ALERT_TRIGGERS,
  ...AUDIT_TRIGGERS,
  ...INVOICE_TRIGGERS,
  ...PAYMENT_TRIGGERS,
  ...LEDGER_TRIGGERS,
];

/**
 * What fires on `table`: its declared triggers, by name. The answer to "what does a write here set off", in place of
 * hand-kept lists in comments (which went stale).
 */
export function triggersOn(table: string): TriggerDeclaration[] {
  return DECLARED_TRIGGERS.filter((t) => t.table === table).sort((a, b) => (a.name < b.name ? -1 : 1));
}
