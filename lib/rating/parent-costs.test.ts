import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import type { ChangeContext } from "@/lib/billing/change-context";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { importBuyRates, importSellRates } from "./import-rates";
import { parseRateCsv } from "./rate-csv";
import { createSupplier } from "./suppliers";
import { uploadDeck } from "./upload-deck";

// The margin guard of a child account's deck (docs/contract.md "Reseller tiers"): its rates against its parent's own.

const BY: ChangeContext = { actor: { type: "api_key", id: "key_r", label: "reseller" }, address: null };
const FROM = new Date("2026-03-01T00:00:00Z");

describeOnEngines("a child's deck against its parent's", (handle) => {
  async function tree() {
    const db = handle().db;
    const reseller = await createBillingGroup(db, { name: "R", currency: "EUR" });
    const child = await createBillingGroup(db, { name: "C", parentId: reseller.id });
    // The reseller pays 0.10 for 44, 0.20 for 447 (longest prefix wins); nothing for 33.
    await importSellRates(db, reseller.id, parseRateCsv("prefix,rate,increment\n44,0.10,60/60\n447,0.20,60/60\n"));
    const supplier = await createSupplier(db, { name: `Carrier ${reseller.id}` });
    await importBuyRates(db, supplier.id, parseRateCsv("prefix,rate,increment\n44,0.55,60/60\n"));
    return { db, reseller, child };
  }
  const deck = parseRateCsv("prefix,rate,increment\n4420,0.15,60/60\n4479,0.19,60/60\n33,0.30,60/60\n4478,0.21,1/1\n");

  it("shows each prefix's parent rate, below cost and unpriced first; a reseller's dry run has no supplier", async () => {
    const { db, reseller, child } = await tree();
    const outcome = await uploadDeck(db, "sell", child.id, deck, {
      effectiveFrom: FROM,
      dryRun: true,
      supplierWarnings: false,
      minMarginBps: 1000,
      by: BY,
    });
    if (!outcome.dryRun) throw new Error("a dry run");
    const costs = outcome.diff.parentCosts!;
    expect(costs).toMatchObject({ accountId: reseller.id, belowCost: 1, unpriced: 1, lowMargin: 1 });
    expect(costs.rates.map((r) => [r.prefix, r.buyPrefix, r.buyRate, r.status])).toEqual([
      ["4479", "447", "0.2", "below_cost"],
      ["33", null, null, "unpriced"],
      // 0.21 over 0.20: 4.76 %, under the 10 % asked.
      ["4478", "447", "0.2", "low_margin"],
      ["4420", "44", "0.1", "ok"],
    ]);
    // The supplier's 0.55 (the operator's cost) is nowhere in a reseller's dry run.
    expect(outcome.diff.marginWarnings).toEqual([]);
    expect(JSON.stringify(outcome.diff)).not.toContain("0.55");
    // The platform's dry run keeps the supplier's warnings beside the parent's figures.
    const staff = await uploadDeck(db, "sell", child.id, deck, { effectiveFrom: FROM, dryRun: true, by: BY });
    if (!staff.dryRun) throw new Error("a dry run");
    expect(staff.diff.marginWarningCount).toBe(3);
    expect(staff.diff.parentCosts?.belowCost).toBe(1);
  });

  it("refuses to import a rate below the parent's (422 below_cost naming it) unless allowBelowCost", async () => {
    const { db, child } = await tree();
    const refused = await uploadDeck(db, "sell", child.id, deck, { effectiveFrom: FROM, by: BY }).catch((e) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect([(refused as ApiError).code, (refused as ApiError).errors?.map((e) => e.param)]).toEqual([
      "below_cost",
      ["prefix 4479"],
    ]);
    const decks = async () =>
      (await queryRows(db, sql`SELECT 1 FROM rate_decks WHERE billing_group_id = ${child.id}`)).length;
    expect(await decks()).toBe(0);
    const imported = await uploadDeck(db, "sell", child.id, deck, {
      effectiveFrom: FROM,
      allowBelowCost: true,
      by: BY,
    });
    expect(imported.dryRun).toBe(false);
    expect(await decks()).toBe(1);
    // A deck at or above the parent's imports as before; a root account has no parent to be checked against.
    const fair = parseRateCsv("prefix,rate,increment\n4479,0.20,60/60\n");
    await uploadDeck(db, "sell", child.id, fair, { effectiveFrom: new Date("2026-04-01T00:00:00Z"), by: BY });
    const root = await createBillingGroup(db, { name: "Root", currency: "EUR" });
    await uploadDeck(db, "sell", root.id, parseRateCsv("prefix,rate,increment\n44,0.0001,1/1\n"), { by: BY });
  });
});
