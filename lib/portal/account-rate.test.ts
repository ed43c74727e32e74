import { beforeAll, expect, it } from "vitest";
import { testPrincipal } from "@/lib/testing/test-principal";
import { createBillingGroup } from "@/lib/billing/groups";
import { importSellRates } from "@/lib/rating/import-rates";
import { rateRowSchema } from "@/lib/rating/schemas";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { lookupAccountRate } from "./account-rate";

const principal = (billingGroupId: string | null) => testPrincipal(billingGroupId, ["calls:read"], "session");

describeOnEngines("rate of a chosen account", (handle) => {
  let a: string;
  let b: string;
  beforeAll(async () => {
    a = (await createBillingGroup(handle().db, { name: "A", currency: "USD" })).id;
    b = (await createBillingGroup(handle().db, { name: "B", currency: "EUR" })).id;
    await importSellRates(handle().db, a, [rateRowSchema.parse({ prefix: "44", rate: "0.012", increment: "60/60" })]);
    await importSellRates(handle().db, b, [rateRowSchema.parse({ prefix: "44", rate: "0.03", increment: "1/1" })]);
  });

  it("looks up the chosen account's own card for a platform session", async () => {
    expect(await lookupAccountRate(handle().db, principal(null), { account: a, destination: "+4420" })).toMatchObject({
      ok: true,
      rate: { matchedPrefix: "44", sellRate: 0.012, currency: "USD", billingIncrement: "60/60" },
    });
    expect(await lookupAccountRate(handle().db, principal(null), { account: b, destination: "4420" })).toMatchObject({
      ok: true,
      rate: { sellRate: 0.03, currency: "EUR" },
    });
  });

  it("never reaches an account the key may not see, and says no_rate and bad input plainly", async () => {
    expect(await lookupAccountRate(handle().db, principal(a), { account: b, destination: "4420" })).toMatchObject({
      ok: false,
      code: "not_found",
    });
    expect(await lookupAccountRate(handle().db, principal(null), { account: a, destination: "33" })).toMatchObject({
      ok: false,
      code: "no_rate",
    });
    expect(await lookupAccountRate(handle().db, principal(null), { account: a, destination: "44x" })).toMatchObject({
      ok: false,
      code: "invalid_parameter",
    });
  });
});
