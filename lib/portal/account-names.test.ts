import { beforeAll, expect, it } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import { createSupplier } from "@/lib/rating/suppliers";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { testPrincipal } from "@/lib/testing/test-principal";
import { accountNames, supplierNames } from "./account-names";

describeOnEngines("names the portal shows instead of ids", (handle) => {
  let acme: string;
  let other: string;
  let carrier: string;
  beforeAll(async () => {
    acme = (await createBillingGroup(handle().db, { name: "Acme Contact Center", currency: "USD" })).id;
    other = (await createBillingGroup(handle().db, { name: "Other Tenant", currency: "EUR" })).id;
    carrier = (await createSupplier(handle().db, { name: "Carrier One" })).id;
  });

  it("names every account for the platform, and only its own for a customer", async () => {
    const platform = await accountNames(handle().db, testPrincipal(null, ["calls:read"], "session"));
    expect(platform).toMatchObject({ [acme]: "Acme Contact Center", [other]: "Other Tenant" });
    const customer = await accountNames(handle().db, testPrincipal(acme, ["calls:read"], "session"));
    expect(customer).toEqual({ [acme]: "Acme Contact Center" });
  });

  it("names suppliers only for sessions that read cost", async () => {
    expect(await supplierNames(handle().db, testPrincipal(acme, ["calls:read"], "session"))).toEqual({});
    const cost = await supplierNames(handle().db, testPrincipal(null, ["calls:read", "calls:read_cost"], "session"));
    expect(cost).toMatchObject({ [carrier]: "Carrier One" });
  });
});
