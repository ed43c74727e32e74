import { getBillingGroup } from "@/lib/billing/groups";
import { rerateUnratedCalls } from "@/lib/ingest/rerate";
import { formatMicros } from "@/lib/money/micros";
import { UsageError, type AdminCommand } from "./command";

export const rerateCommands: AdminCommand[] = [
  {
    name: "rerate",
    usage: "rerate [--group ID]                                  (rates stored unrated calls and debits them, once)",
    options: { group: { type: "string" } },
    async run(db, flags, progress) {
      const group = typeof flags.group === "string" && flags.group.trim() ? flags.group.trim() : undefined;
      if (group && !(await getBillingGroup(db, group))) throw new UsageError(`no billing group ${group}`);
      const result = await rerateUnratedCalls(db, {
        billingGroupId: group,
        progress: (done, total) => progress({ phase: "rerating unrated calls", done, total }),
      });
      return {
        billingGroupId: group ?? null,
        examined: result.examined,
        rated: result.rated,
        stillUnrated: result.stillUnrated,
        debited: formatMicros(result.debitedMicros),
      };
    },
  },
];
