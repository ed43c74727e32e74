import { runInvoices } from "@/lib/invoices/run-invoices";
import { instantFlag, UsageError, type AdminCommand } from "./command";

const usage =
  "invoices run [--now ISO]                              (issues every closed month's invoice not yet issued, and credit/debit notes for invoiced periods whose calls changed; idempotent)";

export const invoiceCommands: AdminCommand[] = [
  {
    name: "invoices run",
    usage,
    options: { now: { type: "string" } },
    async run(db, flags) {
      const clock = new Date();
      const now = instantFlag(flags, "now", usage) ?? clock;
      // A later instant would issue months that have not closed, and calls still to come would be in no invoice.
      if (now > clock)
        throw new UsageError(`--now must not be later than now (${clock.toISOString()})\nusage: ${usage}`);
      const result = await runInvoices(db, { now });
      return { now: now.toISOString(), ...result };
    },
  },
];
