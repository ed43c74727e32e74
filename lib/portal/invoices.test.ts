import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createBillingGroup, setBillingGroupInvoicing } from "@/lib/billing/groups";
import { queryRows } from "@/lib/db/client";
import { runInvoices } from "@/lib/invoices/run-invoices";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { testPrincipal } from "@/lib/testing/test-principal";
import { documentRedirect, portalInvoice, portalInvoices } from "./invoices";

const ISSUER = { name: "Example Telecom Ltd", address: "1 Exchange Road\nLondon" };
const session = (billingGroupId: string | null) => testPrincipal(billingGroupId, ["calls:read"], "session");

describe("documentRedirect", () => {
  it("sends the invoice mail's old link to the document's page, and anything else to the list", () => {
    expect(documentRedirect("inv_0abc9")).toBe("/invoices/inv_0abc9");
    expect(documentRedirect(["inv_1", "inv_2"])).toBe("/invoices/inv_1");
    for (const other of [undefined, "", "inv_", "INV-000001", "inv_1/../x", "call_1", []])
      expect(documentRedirect(other)).toBeNull();
  });
});

describeOnEngines("portal invoices", (handle) => {
  const db = () => handle().db;
  let prepaid: { group: string; invoice: string };
  let postpaid: { group: string; invoice: string };

  beforeAll(async () => {
    const make = async (name: string, mode: "prepaid" | "postpaid") => {
      const { id } = await createBillingGroup(db(), { name, currency: "EUR" });
      await db().execute(sql`UPDATE billing_groups SET created_at = '2025-10-03T12:00:00Z' WHERE id = ${id}`);
      await setBillingGroupInvoicing(db(), id, { billingMode: mode, taxRatePpm: 200_000 });
      return id;
    };
    const groups = [await make("Prepaid Ltd", "prepaid"), await make("Postpaid GmbH", "postpaid")];
    await runInvoices(db(), { now: new Date("2025-11-15T00:00:00Z"), issuer: ISSUER });
    const [a, b] = await Promise.all(
      groups.map(
        async (g) =>
          (await queryRows<{ id: string }>(db(), sql`SELECT id FROM invoices WHERE billing_group_id = ${g}`))[0].id,
      ),
    );
    prepaid = { group: groups[0], invoice: a };
    postpaid = { group: groups[1], invoice: b };
  });

  it("lists each document with the name it bills and whether it is prepaid or due", async () => {
    const rows = await portalInvoices(db(), session(null), undefined);
    expect(rows.find((r) => r.id === prepaid.invoice)).toMatchObject({
      customerName: "Prepaid Ltd",
      billingMode: "prepaid",
      standing: "prepaid",
    });
    // A month without calls: a postpaid statement of 0 owes nothing.
    expect(rows.find((r) => r.id === postpaid.invoice)).toMatchObject({
      customerName: "Postpaid GmbH",
      billingMode: "postpaid",
      standing: "nothing_due",
    });
  });

  it("opens a document of the session's own account with its totals, balance and downloads", async () => {
    const doc = await portalInvoice(db(), session(prepaid.group), prepaid.invoice);
    expect(doc).toMatchObject({
      id: prepaid.invoice,
      kind: "invoice",
      customerName: "Prepaid Ltd",
      taxRate: "20",
      amountDue: 0,
      invoiceNumber: null,
      standing: "prepaid",
      // A month without calls or top-ups: its statement.
      subtotal: 0,
      total: 0,
      lines: [],
      balance: { opening: 0, topups: 0, adjustments: 0, debits: 0, closing: 0 },
      notes: [],
      pdfUrl: `/v1/invoices/${prepaid.invoice}/pdf`,
      callsCsvUrl: `/v1/invoices/${prepaid.invoice}/calls.csv`,
    });
  });

  it("answers another account's document like an unknown one: null, so the page is a 404", async () => {
    expect(await portalInvoice(db(), session(prepaid.group), postpaid.invoice)).toBeNull();
    expect(await portalInvoice(db(), session(prepaid.group), "inv_doesnotexist")).toBeNull();
    expect(await portalInvoice(db(), session(prepaid.group), "not an id")).toBeNull();
    expect(await portalInvoice(db(), session(null), postpaid.invoice)).toMatchObject({ id: postpaid.invoice });
  });
});
