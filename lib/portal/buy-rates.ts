import { asc } from "drizzle-orm";
import { z } from "zod";
import { canReadOperatorCost } from "@/lib/auth/cost-view";
import type { Principal } from "@/lib/auth/principal";
import type { Executor } from "@/lib/db/client";
import { suppliers } from "@/lib/db/schema";
import { microsToNumber } from "@/lib/money/micros";
import { getRateCard } from "@/lib/rating/find-rate";
import { formatIncrement } from "@/lib/rating/schemas";

/** One supplier's buy rate for a destination (amounts at most 6 decimals, in the group's currency: README, Known limitations). */
export interface SupplierBuyRate {
  supplierId: string;
  supplierName: string;
  matchedPrefix: string;
  buyRate: number;
  billingIncrement: string;
  connectFee: number | null;
  minCharge: number | null;
}

export type BuyRatesResult = { ok: true; rates: SupplierBuyRate[] } | { ok: false; code: string; detail: string };

const inputSchema = z.object({ destination: z.string().regex(/^\+?\d{1,32}$/) });

/**
 * What each supplier charges for a destination now (its buy card in force), for the rate calculator of a
 * calls:read_cost session: buy rate and margin sit next to the sell rate. Cost data: refused to every other
 * session (docs/contract.md §4), so nothing of it reaches them. Suppliers without a matching prefix are left out.
 */
export async function lookupBuyRates(db: Executor, principal: Principal, input: unknown): Promise<BuyRatesResult> {
  // The carrier's buy rates are the platform's cost view only (lib/auth/cost-view.ts): never a reseller's.
  if (!canReadOperatorCost(principal))
    return { ok: false, code: "insufficient_scope", detail: "Buy rates need the platform's cost view." };
  const parsed = inputSchema.safeParse(input);
  if (!parsed.success)
    return { ok: false, code: "invalid_parameter", detail: "Enter a destination of digits, optionally with +." };
  const digits = parsed.data.destination.replace(/^\+/, "");
  const all = await db.select({ id: suppliers.id, name: suppliers.name }).from(suppliers).orderBy(asc(suppliers.name));
  const rates: SupplierBuyRate[] = [];
  for (const supplier of all) {
    const match = (await getRateCard(db, "buy", supplier.id))?.match(digits);
    if (!match) continue;
    rates.push({
      supplierId: supplier.id,
      supplierName: supplier.name,
      matchedPrefix: match.prefix,
      buyRate: microsToNumber(match.rateMicros),
      billingIncrement: formatIncrement(match.increment),
      connectFee: match.connectFeeMicros === null ? null : microsToNumber(match.connectFeeMicros),
      minCharge: match.minChargeMicros === null ? null : microsToNumber(match.minChargeMicros),
    });
  }
  return { ok: true, rates };
}
