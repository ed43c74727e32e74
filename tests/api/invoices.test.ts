import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { invoicePageSchema, invoiceSchema, type Invoice, type InvoiceSummary } from "@/lib/invoices/schemas";
import { api, apiServers, query, type ApiResponse, type ApiServer, type KeyName } from "./helpers";

const run = promisify(execFile);

interface InvoicePageBody {
  invoices: InvoiceSummary[];
  nextPageUrl: string | null;
  meta: { pageSize: number; hasMore: boolean };
}

/** Every document a key lists, following nextPageUrl. */
async function walk(
  server: ApiServer,
  first: string,
  key: KeyName,
): Promise<{ docs: InvoiceSummary[]; pages: number }> {
  const docs: InvoiceSummary[] = [];
  let next: string | null = first;
  let pages = 0;
  while (next !== null && pages < 100) {
    const res: ApiResponse<InvoicePageBody> = await api<InvoicePageBody>(server, next, { key });
    expect(res.status, res.text).toBe(200);
    invoicePageSchema.strict().parse(res.body);
    docs.push(...res.body.invoices);
    next = res.body.nextPageUrl;
    expect(res.body.meta.hasMore).toBe(next !== null);
    pages++;
  }
  return { docs, pages };
}

describe.each(apiServers())("invoices on $engine", (server) => {
  const groupA = server.groups.a.id;
  const groupB = server.groups.b.id;

  it("pages every document newest first, without repeats, with the filters kept in nextPageUrl", async () => {
    const all = await walk(server, "/v1/invoices?pageSize=200", "platformRead");
    const paged = await walk(server, "/v1/invoices?pageSize=3", "platformRead");
    expect(paged.docs.map((d) => d.id)).toEqual(all.docs.map((d) => d.id));
    expect(paged.pages).toBe(Math.ceil(all.docs.length / 3));
    expect(new Set(all.docs.map((d) => d.id)).size).toBe(all.docs.length);
    // The fixture groups a and b (created December 2025) have one invoice per closed month since; no other group has one.
    const a = all.docs.filter((d) => d.billingGroupId === groupA);
    const b = all.docs.filter((d) => d.billingGroupId === groupB);
    expect(a.length).toBeGreaterThanOrEqual(11);
    expect(b).toHaveLength(a.length);
    expect(a.length + b.length).toBe(all.docs.length);
    const issued = all.docs.map((d) => `${d.issuedAt} ${d.number}`);
    expect(
      [...issued]
        .sort()
        .reverse()
        .map((s) => s.split(" ")[1]),
    ).toEqual(all.docs.map((d) => d.number));
    // Gapless numbers over all groups.
    const numbers = all.docs.map((d) => Number(d.number.slice(4))).sort((x, y) => x - y);
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    // account narrows a platform key, and nextPageUrl carries it.
    const onlyA = await walk(server, `/v1/invoices${query({ pageSize: 4, account: groupA })}`, "platformRead");
    expect(onlyA.docs.map((d) => d.id)).toEqual(a.map((d) => d.id));
    const first = await api<InvoicePageBody>(server, `/v1/invoices${query({ pageSize: 4, account: groupA })}`, {
      key: "platformRead",
    });
    expect(new URL(first.body.nextPageUrl!).searchParams.get("account")).toBe(groupA);
    // A cursor is bound to its filters.
    const cursor = new URL(first.body.nextPageUrl!).searchParams.get("cursor")!;
    const replayed = await api(server, `/v1/invoices${query({ pageSize: 4, cursor })}`, { key: "platformRead" });
    expect(replayed.status).toBe(400);
    expect(replayed.body).toMatchObject({ code: "invalid_cursor" });
    const bad = await api(server, "/v1/invoices?pageSize=201", { key: "platformRead" });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "invalid_parameter", errors: [{ param: "pageSize" }] });
  });

  it("shows a bound key its own group's documents only; another group's id is 404", async () => {
    const mine = await walk(server, "/v1/invoices?pageSize=200", "readA");
    expect(mine.docs.length).toBeGreaterThan(0);
    expect(mine.docs.every((d) => d.billingGroupId === groupA)).toBe(true);
    const asking = await walk(server, `/v1/invoices${query({ account: groupB })}`, "readA");
    expect(asking.docs).toEqual([]);
    const theirs = (await walk(server, "/v1/invoices?pageSize=200", "readB")).docs[0];
    for (const suffix of ["", "/pdf", "/calls.csv"]) {
      const res = await api(server, `/v1/invoices/${theirs.id}${suffix}`, { key: "readA" });
      expect(res.status, suffix).toBe(404);
      expect(res.body).toMatchObject({ code: "not_found" });
    }
    for (const id of ["inv_unknown", "inv_%00", "x".repeat(300)])
      expect((await api(server, `/v1/invoices/${id}`, { key: "platformRead" })).status, id).toBe(404);
  });

  it("answers one invoice with lines and totals in cents that agree, and a balance that agrees to the micro", async () => {
    const { docs } = await walk(server, "/v1/invoices?pageSize=200", "readA");
    // January 2026 in Berlin holds the fixture calls of group a.
    const january = docs.find((d) => d.periodStart === "2025-12-31T23:00:00.000Z")!;
    expect(january).toMatchObject({ kind: "invoice", timeZone: "Europe/Berlin", currency: "USD" });
    const res = await api<Invoice>(server, `/v1/invoices/${january.id}`, { key: "readA" });
    expect(res.status).toBe(200);
    const invoice = invoiceSchema.strict().parse(res.body);
    expect(invoice).toMatchObject({ billingMode: "postpaid", taxRate: "19", issuer: { name: "Fixture Telecom" } });
    const micros = (n: number) => BigInt(Math.round(n * 1e6));
    const usage = invoice.lines.filter((l) => l.kind === "usage");
    expect(usage.length).toBeGreaterThan(1);
    // Payable amounts (docs/contract.md §10): whole cents; usage and rounding lines make the subtotal.
    const billed = invoice.lines.filter((l) => l.kind === "usage" || l.kind === "rounding");
    for (const amount of [...billed.map((l) => l.amount), invoice.subtotal, invoice.tax, invoice.total])
      expect(micros(amount) % 10_000n, String(amount)).toBe(0n);
    expect(billed.reduce((s, l) => s + micros(l.amount), 0n)).toBe(micros(invoice.subtotal));
    expect(micros(invoice.total)).toBe(micros(invoice.subtotal) + micros(invoice.tax));
    expect(micros(invoice.amountDue)).toBe(micros(invoice.total));
    const b = invoice.balance!;
    expect(micros(b.closing)).toBe(micros(b.opening) + micros(b.topups) + micros(b.adjustments) + micros(b.debits));
    // The subtotal is the sum of the period's call prices, as GET /v1/calls lists them, but for the sub-cent
    // remainders carried in (from December's invoice) and out (to the next document).
    const csv = await api(server, `/v1/invoices/${january.id}/calls.csv`, { key: "readA" });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    const [header, ...rows] = csv.text.trim().split("\r\n");
    const price = header.split(",").indexOf("price");
    expect(rows.length).toBe(usage.reduce((s, l) => s + l.calls, 0));
    const calls = rows.reduce((s, r) => s + micros(Number(r.split(",")[price])), 0n);
    const off = calls - micros(invoice.subtotal);
    expect(off < 0n ? -off : off).toBeLessThan(10_000n);
    expect(header).not.toMatch(/buyCost|margin/);
  });

  it("serves the PDF as application/pdf, reading as the invoice", async () => {
    const { docs } = await walk(server, "/v1/invoices?pageSize=200", "readA");
    const doc = docs[0];
    const res = await fetch(`${server.baseUrl}/v1/invoices/${doc.id}/pdf`, {
      headers: { authorization: `Bearer ${server.keys.readA}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${doc.number}.pdf"`);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "api-pdf-")), "doc.pdf");
    fs.writeFileSync(file, bytes);
    const { stdout } = await run("pdftotext", ["-layout", file, "-"]);
    expect(stdout).toContain(`No. ${doc.number}`);
    expect(stdout).toContain("Fixture Telecom");
    expect(stdout).toContain("Acme Telecom");
    // The production build reads the Noto fonts from node_modules: Japanese and Hebrew (right to left) as written.
    expect(stdout.replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "")).toContain("東京支店 / סניף תל אביב");
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  it("needs invoices:read, which calls:read keys hold; an invoices:read key reads invoices but not calls", async () => {
    const refused = await api(server, "/v1/invoices", { key: "ingestA" });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "insufficient_scope" });
    expect((await api(server, "/v1/invoices", { key: "invoicesA" })).status).toBe(200);
    expect((await api(server, "/v1/invoices", { key: "costA" })).status).toBe(200);
    expect((await api(server, "/v1/calls", { key: "invoicesA" })).status).toBe(403);
    expect((await api(server, "/v1/invoices", {})).status).toBe(401);
  });
});
