import { getBillingGroup } from "@/lib/billing/groups";
import { rerateCalls } from "@/lib/rating/rerate";
import { movedMonthsAfter } from "@/lib/history/moved-months";
import { formatMicros } from "@/lib/money/micros";
import { instantFlag, UsageError, type AdminCommand } from "./command";

const usage =
  "rerate [--group ID] [--since ISO]                     (rates stored unrated calls and debits them, once; --since also re-rates the calls started since then with the decks in force at their start, adjusting balances by the exact difference)";

export const rerateCommands: AdminCommand[] = [
  {
    name: "rerate",
    usage,
    options: { group: { type: "string" }, since: { type: "string" } },
    async run(db, flags, progress) {
      const group = typeof flags.group === "string" && flags.group.trim() ? flags.group.trim() : undefined;
      if (group && !(await getBillingGroup(db, group))) throw new UsageError(`no billing group ${group}`);
      const since = instantFlag(flags, "since", usage);
      // Moved calls are in the history tier, not in calls: re-rating would skip them silently (docs/contract.md).
      const moved = since ? await movedMonthsAfter(db, since) : [];
      if (moved.length > 0)
        throw new UsageError(
          `--since reaches ${moved.join(", ")}, moved to the history tier: a moved month is not re-rated; ` +
            `use --since ${new Date(Date.UTC(Number(moved.at(-1)!.slice(0, 4)), Number(moved.at(-1)!.slice(5)), 1)).toISOString()} or later\nusage: ${usage}`,
        );
      const result = await rerateCalls(db, {
        billingGroupId: group,
        since,
        progress: (done, total) =>
          progress({ phase: since ? "re-rating calls" : "rerating unrated calls", done, total }),
      });
      return {
        billingGroupId: group ?? null,
        since: since?.toISOString() ?? null,
        examined: result.examined,
        rated: result.rated,
        stillUnrated: result.stillUnrated,
        debited: formatMicros(result.debitedMicros),
        // The reseller tiers above the calls' accounts (docs/contract.md "Reseller tiers").
        tiersRated: result.tiersRated,
        ...(since ? { tiersRerated: result.tiersRerated } : {}),
        ...(since
          ? { rerated: result.rerated, adjusted: formatMicros(result.adjustedMicros), unmatched: result.unmatched }
          : {}),
      };
    },
  },
];
