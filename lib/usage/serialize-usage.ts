import { usageCostViewOf } from "@/lib/auth/cost-view";
import type { Principal } from "@/lib/auth/principal";
import type { UsageSums } from "@/lib/calls/usage-sums";
import { microsToNumber } from "@/lib/money/micros";
import type { UsageGroupBy, UsageReport, UsageRow, UsageRowWithCost, UsageTotal, UsageTotalWithCost } from "./schemas";

type Figures = Omit<UsageSums, "key" | "label" | "currency">;
const FIGURES: (keyof Figures)[] = [
  "calls",
  "answeredCalls",
  "unratedCalls",
  "billedSeconds",
  "priceMicros",
  "buyCostMicros",
  "marginMicros",
];

function figures(s: Figures, withCost: boolean) {
  const base = {
    calls: Number(s.calls),
    answeredCalls: Number(s.answeredCalls),
    unratedCalls: Number(s.unratedCalls),
    billedSeconds: Number(s.billedSeconds),
    price: microsToNumber(s.priceMicros),
  };
  return withCost
    ? { ...base, buyCost: microsToNumber(s.buyCostMicros), margin: microsToNumber(s.marginMicros) }
    : base;
}

/**
 * THE one place usage sums become the API's UsageReport: buyCost and margin are added only for
 * calls:read_cost principals of the platform or of a reseller (an account with children), so they are absent (not null) for everyone else, in rows and totals.
 * Totals are summed in bigint per currency; amounts of different currencies are never added.
 */
export function serializeUsage(
  groupBy: UsageGroupBy,
  timeZone: string,
  sums: UsageSums[],
  principal: Principal,
): UsageReport {
  // The sums' buy cost and margin are the operator's for the platform, a reseller's own tier's for a reseller
  // (readUsageSums' `tier`), none for a customer without children (docs/contract.md §21, "Usage by tier").
  const withCost = usageCostViewOf(principal).kind !== "none";
  const totals = new Map<string, Figures>();
  for (const s of sums) {
    const t = totals.get(s.currency) ?? {
      calls: 0n,
      answeredCalls: 0n,
      unratedCalls: 0n,
      billedSeconds: 0n,
      priceMicros: 0n,
      buyCostMicros: 0n,
      marginMicros: 0n,
    };
    for (const f of FIGURES) t[f] += s[f];
    totals.set(s.currency, t);
  }
  return {
    groupBy,
    timeZone,
    rows: sums.map(
      (s) =>
        ({ key: s.key, label: s.label, currency: s.currency, ...figures(s, withCost) }) as UsageRow | UsageRowWithCost,
    ),
    totals: [...totals]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([currency, t]) => ({ currency, ...figures(t, withCost) }) as UsageTotal | UsageTotalWithCost),
  };
}
