import { sql } from "drizzle-orm";
import { afterEach, expect, it, vi } from "vitest";
import { setBillingDetails } from "@/lib/billing/billing-details";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows, type Db } from "@/lib/db/client";
import { drainMailOutbox } from "@/lib/mail/outbox";
import type { MailMessage } from "@/lib/mail/send-mail";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { testPrincipal } from "@/lib/testing/test-principal";
import { getInvoice } from "./read-invoices";
import { invoiceAttachments } from "./invoice-mail-attachments";
import { serializeInvoice } from "./serialize-invoice";
import { runInvoices } from "./run-invoices";

afterEach(() => {
  vi.unstubAllEnvs();
});

const ISSUER = { name: "Example Telecom Ltd", address: "1 Exchange Road\nLondon" };

/** An organization for the group with one member per role given. */
async function addMembers(db: Db, groupId: string, roles: string[]): Promise<void> {
  const org = `org_${groupId}`;
  await db.execute(
    sql`INSERT INTO organizations (id, name, slug, billing_group_id) VALUES (${org}, 'Org', ${org}, ${groupId})`,
  );
  for (const role of roles) {
    const user = `u_${role}_${groupId}`;
    await db.execute(
      sql`INSERT INTO users (id, name, email) VALUES (${user}, ${role}, ${`${role}.${groupId}@example.test`})`,
    );
    await db.execute(
      sql`INSERT INTO members (id, organization_id, user_id, role) VALUES (${`m_${user}`}, ${org}, ${user}, ${role})`,
    );
  }
}

describeOnEngines("invoice mail", (handle) => {
  const db = () => handle().db;

  it("mails each owner and billing member once per issued invoice, after commit, with the PDF; a re-run mails nobody", async () => {
    const group = await createBillingGroup(db(), {
      name: "Mailco",
      currency: "EUR",
      openingBalanceMicros: 10_000_000n,
    });
    await db().execute(sql`UPDATE billing_groups SET created_at = '2025-10-03T12:00:00Z' WHERE id = ${group.id}`);
    await addMembers(db(), group.id, ["owner", "billing", "viewer", "developer"]);
    const sent: MailMessage[] = [];
    const drain = () =>
      drainMailOutbox(db(), {
        send: async (m) => void sent.push(m),
        attachments: (reference) => invoiceAttachments(db(), reference),
        batch: 1_000,
      });

    await runInvoices(db(), { now: new Date("2025-11-15T00:00:00Z"), issuer: ISSUER });
    const [invoice] = await queryRows<{ id: string; number: string }>(
      db(),
      sql`SELECT id, number FROM invoices WHERE billing_group_id = ${group.id}`,
    );
    expect(invoice).toBeDefined();
    await drain();
    const ours = sent.filter((m) => m.to.endsWith(`.${group.id}@example.test`));
    expect(ours.map((m) => m.to).sort()).toEqual([
      `billing.${group.id}@example.test`,
      `owner.${group.id}@example.test`,
    ]);
    for (const m of ours) {
      expect(m.subject).toBe(`Invoice ${invoice.number}: 0.00 EUR`);
      // The document's own page in the portal (the old ?document= link redirects there).
      expect(m.text).toContain(`/invoices/${invoice.id}\n`);
      expect(m.attachments?.[0].filename).toBe(`${invoice.number}.pdf`);
      expect(Buffer.from(m.attachments![0].content).subarray(0, 5).toString()).toBe("%PDF-");
    }

    // The run again (nothing due) and the outbox again (all sent): no second mail.
    await runInvoices(db(), { now: new Date("2025-11-15T00:00:00Z"), issuer: ISSUER });
    await drain();
    expect(sent.filter((m) => m.to.endsWith(`.${group.id}@example.test`))).toHaveLength(2);
  });

  // Issue 32 item 4: a reseller's customer gets its invoice from the reseller, under the reseller's billing details.
  it("issues and mails a reseller's customer's invoice under the reseller's billing details; the operator's as before", async () => {
    const reseller = await createBillingGroup(db(), { name: "Resell Acct", currency: "USD" });
    const customer = await createBillingGroup(db(), { name: "Its Customer", currency: "USD", parentId: reseller.id });
    const root = await createBillingGroup(db(), { name: "Direct Customer", currency: "USD" });
    for (const g of [reseller.id, customer.id, root.id]) {
      await db().execute(sql`UPDATE billing_groups SET created_at = '2025-10-03T12:00:00Z' WHERE id = ${g}`);
    }
    await addMembers(db(), customer.id, ["owner"]);
    await addMembers(db(), root.id, ["owner"]);
    await setBillingDetails(
      db(),
      reseller.id,
      { name: "Resell Trading GmbH", address: "Hauptstr. 1\n10115 Berlin", taxId: "DE123456789" },
      { actor: { type: "user", id: "u_reseller", label: "owner" }, address: null },
    );
    await runInvoices(db(), { now: new Date("2025-11-15T00:00:00Z"), issuer: ISSUER });
    const docs = await queryRows<{ id: string; billing_group_id: string }>(
      db(),
      sql`SELECT id, billing_group_id FROM invoices WHERE billing_group_id IN (${customer.id}, ${root.id})`,
    );
    const docOf = async (g: string) =>
      serializeInvoice(await getInvoice(db(), testPrincipal(g), docs.find((d) => d.billing_group_id === g)!.id));
    expect((await docOf(customer.id)).issuer).toEqual({
      name: "Resell Trading GmbH",
      address: "Hauptstr. 1\n10115 Berlin\nTax ID: DE123456789",
    });
    expect((await docOf(root.id)).issuer).toEqual(ISSUER);

    const sent: MailMessage[] = [];
    await drainMailOutbox(db(), { send: async (m) => void sent.push(m), batch: 1_000 });
    const toCustomer = sent.find((m) => m.to === `owner.${customer.id}@example.test`)!;
    expect(toCustomer.fromName).toBe("Resell Trading GmbH");
    expect(toCustomer.text).toContain("for Its Customer has been issued by Resell Trading GmbH, total");
    const toRoot = sent.find((m) => m.to === `owner.${root.id}@example.test`)!;
    expect(toRoot.fromName).toBeUndefined();
    expect(toRoot.text).toContain("for Direct Customer has been issued, total");
  });

  it("retries a message whose sending failed, and sends it once", async () => {
    const group = await createBillingGroup(db(), { name: "Retryco", currency: "USD" });
    await db().execute(sql`UPDATE billing_groups SET created_at = '2025-10-03T12:00:00Z' WHERE id = ${group.id}`);
    await addMembers(db(), group.id, ["billing"]);
    await runInvoices(db(), { now: new Date("2025-11-15T00:00:00Z"), issuer: ISSUER });
    const to = `billing.${group.id}@example.test`;
    const sent: string[] = [];
    let fail = true;
    const send = async (m: MailMessage) => {
      if (m.to !== to) return;
      if (fail) throw new Error("smtp down");
      sent.push(m.to);
    };
    await drainMailOutbox(db(), { send, retryBaseMs: 0, batch: 1_000 });
    expect(sent).toEqual([]);
    fail = false;
    await drainMailOutbox(db(), { send, retryBaseMs: 0, batch: 1_000 });
    await drainMailOutbox(db(), { send, retryBaseMs: 0, batch: 1_000 });
    expect(sent).toEqual([to]);
  });

  // Issue 30: a customer can always see how to pay; the operator's contact (OPERATOR_CONTACT) is in the mail too.
  it("says whom to contact to pay when the operator set OPERATOR_CONTACT, and nothing of it otherwise", async () => {
    const sent: MailMessage[] = [];
    const send = async (m: MailMessage) => void sent.push(m);
    for (const [name, contact] of [
      ["Contactco", "accounts@operator.example, +1 555 0100"],
      ["Quietco", ""],
    ]) {
      vi.stubEnv("OPERATOR_CONTACT", contact);
      const group = await createBillingGroup(db(), { name, currency: "USD" });
      await db().execute(sql`UPDATE billing_groups SET created_at = '2025-10-03T12:00:00Z' WHERE id = ${group.id}`);
      await addMembers(db(), group.id, ["billing"]);
      await runInvoices(db(), { now: new Date("2025-11-15T00:00:00Z"), issuer: ISSUER });
      await drainMailOutbox(db(), { send, batch: 1_000 });
      const mail = sent.find((m) => m.to === `billing.${group.id}@example.test`);
      expect(mail, name).toBeDefined();
      if (contact) expect(mail!.text).toContain(`Questions or paying: contact ${contact}`);
      else expect(mail!.text).not.toContain("Questions or paying");
    }
  });
});
