import { runInvoices } from "@/lib/invoices/run-invoices";
import { instantFlag, type AdminCommand } from "./command";

const usage =
  "invoices run [--now ISO]                              (issues every closed month's invoice not yet issued, and credit/debit notes for invoiced periods whose calls changed; idempotent)";

export const invoiceCommands: AdminCommand[] = [
  {
    name: "invoices run",
    usage,
    options: { now: { type: "string" } },
    async run(db, flags) {
      const now = instantFlag(flags, "now", usage) ?? new Date();
      const result = await runInvoices(db, { now });
      return { now: now.toISOString(), ...result };
    },
  },
];
