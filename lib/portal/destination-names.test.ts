import { beforeAll, expect, it } from "vitest";
import { testPrincipal } from "@/lib/testing/test-principal";
import { createBillingGroup } from "@/lib/billing/groups";
import { importBuyRates, importSellRates } from "@/lib/rating/import-rates";
import { rateRowSchema } from "@/lib/rating/schemas";
import { createSupplier } from "@/lib/rating/suppliers";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { lookupBuyRates } from "./buy-rates";
import { nameDestinations } from "./destination-names";

const rate = (prefix: string, value: string, description?: string) =>
  rateRowSchema.parse({ prefix, rate: value, increment: "1/1", description });

describeOnEngines("destination names and buy rates of the portal", (handle) => {
  let a: string;
  let b: string;
  beforeAll(async () => {
    a = (await createBillingGroup(handle().db, { name: "A", currency: "USD" })).id;
    b = (await createBillingGroup(handle().db, { name: "B", currency: "EUR" })).id;
    await importSellRates(handle().db, a, [
      rate("63", "0.1", "Philippines fixed"),
      rate("639", "0.2", "Philippines mobile"),
    ]);
    await importSellRates(handle().db, b, [rate("63", "0.3", "Philippinen")]);
    const carrier = await createSupplier(handle().db, { name: "Zeta Carrier" });
    const other = await createSupplier(handle().db, { name: "Alpha Carrier" });
    await importBuyRates(handle().db, carrier.id, [rate("63", "0.05"), rate("639", "0.15")]);
    await importBuyRates(handle().db, other.id, [rate("44", "0.01")]);
  });

  it("names numbers by the longest prefix of the group's card, only in groups the key may see", async () => {
    const input = [
      { billingGroupId: a, numbers: ["+6391712345", "6321234567", "4420", "x1"] },
      { billingGroupId: b, numbers: ["6391712345"] },
    ];
    expect(await nameDestinations(handle().db, testPrincipal(null), input)).toEqual({
      [a]: { "+6391712345": "Philippines mobile", "6321234567": "Philippines fixed" },
      [b]: { "6391712345": "Philippinen" },
    });
    expect(await nameDestinations(handle().db, testPrincipal(a), input)).toEqual({
      [a]: { "+6391712345": "Philippines mobile", "6321234567": "Philippines fixed" },
    });
    expect(await nameDestinations(handle().db, testPrincipal(a), "nonsense")).toEqual({});
  });

  it("lists each supplier's buy rate for the platform's cost view only, suppliers without the destination left out", async () => {
    const cost = await lookupBuyRates(handle().db, testPrincipal(null, ["calls:read_cost"]), {
      destination: "+639171",
    });
    expect(cost).toEqual({
      ok: true,
      rates: [
        expect.objectContaining({
          supplierName: "Zeta Carrier",
          matchedPrefix: "639",
          buyRate: 0.15,
          billingIncrement: "1/1",
          connectFee: null,
        }),
      ],
    });
    expect(await lookupBuyRates(handle().db, testPrincipal(a), { destination: "639171" })).toMatchObject({
      ok: false,
      code: "insufficient_scope",
    });
    // An account's cost view (a reseller's) is its own tier's, never the carrier's (issue 32).
    expect(
      await lookupBuyRates(handle().db, testPrincipal(a, ["calls:read_cost"]), { destination: "639171" }),
    ).toMatchObject({ ok: false, code: "insufficient_scope" });
    expect(
      await lookupBuyRates(handle().db, testPrincipal(null, ["calls:read_cost"]), { destination: "6x" }),
    ).toMatchObject({ ok: false, code: "invalid_parameter" });
  });
});
