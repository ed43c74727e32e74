import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import type { StoredInvoice, StoredLine } from "./read-invoices";
import { formatAmount, formatPeriod, renderInvoicePdf } from "./render-pdf";

const run = promisify(execFile);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "invoice-pdf-"));

function invoice(lines: StoredLine[], overrides: Partial<StoredInvoice> = {}): StoredInvoice {
  const subtotal = lines.filter((l) => l.kind === "usage").reduce((s, l) => s + l.amountMicros, 0n);
  return {
    id: "inv_test",
    seq: "1",
    kind: "invoice",
    number: "INV-000042",
    billingGroupId: "bg_acme",
    invoiceId: null,
    invoiceNumber: null,
    periodStart: new Date("2025-10-01T04:00:00Z"),
    periodEnd: new Date("2025-11-01T04:00:00Z"),
    timeZone: "America/New_York",
    billingMode: "postpaid",
    taxRatePpm: 88_750,
    currency: "USD",
    customerName: "Acme Müller & Søn",
    issuerName: "Example Telecom Ltd",
    issuerAddress: "1 Exchange Road\nLondon EC1A 1AA",
    subtotalMicros: subtotal,
    taxMicros: 12_340_000n,
    totalMicros: subtotal + 12_340_000n,
    balance: {
      opening: 100_000_000n,
      topups: 25_000_000n,
      adjustments: -1_500n,
      debits: -80_123_456n,
      closing: 44_875_044n,
    },
    issuedAt: new Date("2025-11-01T04:05:00Z"),
    lines,
    notes: [],
    ...overrides,
  };
}

const usage = (i: number): StoredLine => ({
  kind: "usage",
  direction: i % 2 ? "inbound" : "outbound",
  prefix: String(4400 + i),
  description: `Destination ${i} (${4400 + i})`,
  calls: 10 + i,
  billedSeconds: 61 * i,
  amountMicros: BigInt(1_234_567 * i),
  occurredAt: null,
});

/** The page as a grey-scale picture: pdftoppm's PGM (P5) at 50 dpi. */
async function pagePixels(pdf: string, page: number): Promise<{ width: number; height: number; pixels: Buffer }> {
  const out = path.join(dir, `page-${page}`);
  await run("pdftoppm", ["-gray", "-r", "50", "-f", String(page), "-l", String(page), "-singlefile", pdf, out]);
  const data = fs.readFileSync(`${out}.pgm`);
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(data.subarray(0, 40).toString("latin1"))!;
  return { width: Number(header[1]), height: Number(header[2]), pixels: data.subarray(header[0].length) };
}

describe("an invoice's PDF", () => {
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("reads as the document: issuer, customer, number, period, lines and totals", async () => {
    const doc = invoice([
      usage(1),
      usage(2),
      {
        kind: "topup",
        direction: null,
        prefix: null,
        description: "Top-up",
        calls: 0,
        billedSeconds: 0,
        amountMicros: 25_000_000n,
        occurredAt: new Date("2025-10-12T10:00:00Z"),
      },
    ]);
    const file = path.join(dir, "small.pdf");
    fs.writeFileSync(file, await renderInvoicePdf(doc));
    const { stdout: text } = await run("pdftotext", ["-layout", file, "-"]);
    for (const expected of [
      "Example Telecom Ltd",
      "1 Exchange Road",
      "INVOICE",
      "No. INV-000042",
      "Period 1 Oct 2025 - 31 Oct 2025",
      "Acme Müller & Søn",
      "Destination 1 (4401)",
      "inbound",
      "2.47",
      "Tax 8.875 %",
      `${formatAmount(doc.totalMicros, "USD")} USD`,
      "Opening balance",
      "Closing balance",
      "44.88 USD",
      "INV-000042 - page 1 of 1",
    ])
      expect(text).toContain(expected);
    // Looked at as a picture: ink in the header band and in the table, white margins.
    await run("pdftoppm", ["-png", "-r", "60", "-singlefile", file, path.join(dir, "small")]);
    const { width, height, pixels } = await pagePixels(file, 1);
    const dark = (x0: number, y0: number, x1: number, y1: number) => {
      let n = 0;
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (pixels[y * width + x] < 128) n++;
      return n;
    };
    expect(dark(0, 0, width, Math.round(height * 0.1))).toBeGreaterThan(100);
    expect(dark(0, Math.round(height * 0.25), width, Math.round(height * 0.45))).toBeGreaterThan(100);
    expect(dark(0, 0, 10, height)).toBe(0);
  });

  // Issue 30: a customer can always see how to pay: the operator's contact, when set, is on the document.
  it("prints the operator's contact when one is given, and no contact section otherwise", async () => {
    const withContact = path.join(dir, "contact.pdf");
    fs.writeFileSync(withContact, await renderInvoicePdf(invoice([usage(1)]), "accounts@operator.example"));
    const { stdout: text } = await run("pdftotext", ["-layout", withContact, "-"]);
    expect(text).toContain("Questions or paying");
    expect(text).toContain("Contact accounts@operator.example");
    const without = path.join(dir, "no-contact.pdf");
    fs.writeFileSync(without, await renderInvoicePdf(invoice([usage(1)])));
    expect((await run("pdftotext", ["-layout", without, "-"])).stdout).not.toContain("Questions or paying");
  });

  it("runs over pages with the table's header repeated, and prints text no font covers as ?", async () => {
    const lines = Array.from({ length: 500 }, (_, i) => usage(i + 1));
    lines[0] = { ...lines[0], description: "東京 (81)" };
    lines[1] = { ...lines[1], description: "서울 (82)" };
    const file = path.join(dir, "long.pdf");
    const bytes = await renderInvoicePdf(
      invoice(lines, { kind: "credit_note", number: "CN-000007", invoiceNumber: "INV-000042", balance: null }),
    );
    fs.writeFileSync(file, bytes);
    const { stdout: info } = await run("pdfinfo", [file]);
    const pages = Number(/Pages:\s+(\d+)/.exec(info)![1]);
    expect(pages).toBeGreaterThan(5);
    const { stdout: last } = await run("pdftotext", ["-f", String(pages), "-l", String(pages), "-layout", file, "-"]);
    expect(last).toContain("Destination 500 (4900)");
    expect(last).toContain("Destination");
    expect(last).toContain(`CN-000007 - page ${pages} of ${pages}`);
    const { stdout: first } = await run("pdftotext", ["-f", "1", "-l", "1", "-layout", file, "-"]);
    expect(first).toContain("CREDIT NOTE");
    expect(first).toContain("Corrects invoice INV-000042");
    expect(first).toContain("東京 (81)");
    // No embedded font has Hangul.
    expect(first).toContain("?? (82)");
    // The same document renders the same bytes (dates are the issue time).
    expect(
      Buffer.from(
        await renderInvoicePdf(
          invoice(lines, { kind: "credit_note", number: "CN-000007", invoiceNumber: "INV-000042", balance: null }),
        ),
      ),
    ).toEqual(Buffer.from(bytes));
  });

  it("prints a legal name in its own script: Japanese, Hebrew and Arabic (right to left, shaped)", async () => {
    const names = ["株式会社テスト", 'חברת הבדיקה בע"מ', "شركة الاختبار المحدودة", "Αθήνα Łódź Москва Ltd"];
    for (const [i, name] of names.entries()) {
      const file = path.join(dir, `name-${i}.pdf`);
      fs.writeFileSync(file, await renderInvoicePdf(invoice([usage(1)], { customerName: name })));
      const { stdout } = await run("pdftotext", ["-layout", file, "-"]);
      // pdftotext marks right-to-left text with directional formatting characters; the text is in logical order.
      const text = stdout.replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "");
      expect(text, name).toMatch(new RegExp(`Bill to\\s+${name}\\s+Account bg_acme`));
      expect(text).not.toContain("?");
      // Only the faces used, as subsets.
      const { stdout: fonts } = await run("pdffonts", [file]);
      expect(fonts).toMatch(/[A-Z]{6}\+NotoSans\S*-Bold +CID TrueType +Identity-H +yes yes yes/);
      expect(fonts).not.toContain("-Regular");
      expect(fs.statSync(file).size).toBeLessThan(20_000);
    }
    // Latin-1 text embeds nothing: Helvetica is a standard font.
    const latin = path.join(dir, "latin.pdf");
    fs.writeFileSync(latin, await renderInvoicePdf(invoice([usage(1)])));
    const { stdout: fonts } = await run("pdffonts", [latin]);
    expect(fonts).not.toContain("NotoSans");
  });

  it("draws every glyph of an embedded subset (kana and kanji are not blank)", async () => {
    const name = "株式会社テスト";
    const file = path.join(dir, "glyphs.pdf");
    fs.writeFileSync(file, await renderInvoicePdf(invoice([], { customerName: name })));
    const { stdout: boxes } = await run("pdftotext", ["-bbox", file, "-"]);
    const box = new RegExp(`xMin="([\\d.]+)" yMin="([\\d.]+)" xMax="([\\d.]+)" yMax="([\\d.]+)">${name}<`).exec(boxes)!;
    const [x0, y0, x1, y1] = box.slice(1).map(Number);
    // At 72 dpi a pixel is a point: each of the seven (full-width) characters' cells has ink.
    const out = path.join(dir, "glyphs");
    await run("pdftoppm", ["-gray", "-r", "72", "-f", "1", "-l", "1", "-singlefile", file, out]);
    const data = fs.readFileSync(`${out}.pgm`);
    const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(data.subarray(0, 40).toString("latin1"))!;
    const width = Number(header[1]);
    const pixels = data.subarray(header[0].length);
    const cell = (x1 - x0) / name.length;
    for (let c = 0; c < name.length; c++) {
      let ink = 0;
      for (let y = Math.floor(y0); y < Math.ceil(y1); y++)
        for (let x = Math.ceil(x0 + c * cell); x < Math.floor(x0 + (c + 1) * cell); x++)
          if (pixels[y * width + x] < 128) ink++;
      expect(ink, name[c]).toBeGreaterThan(10);
    }
  });

  it("wraps a long legal name (200 characters, or CJK without spaces) inside the margins", async () => {
    const words = Array.from({ length: 21 }, (_, i) => `Holding${String(i).padStart(2, "0")}`);
    const long = words.join(" ");
    expect(long.length).toBeGreaterThan(200);
    const cjk = "東京都千代田区丸の内一丁目株式会社".repeat(6);
    for (const [i, name] of [long, cjk].entries()) {
      const file = path.join(dir, `long-name-${i}.pdf`);
      fs.writeFileSync(file, await renderInvoicePdf(invoice([usage(1)], { customerName: name, issuerName: name })));
      const { stdout } = await run("pdftotext", ["-layout", file, "-"]);
      // (The title stands at the right of the issuer name's first line.)
      const flat = stdout.replace("INVOICE", "").replace(/\s+/g, "");
      // Twice: the issuer's name in the header and the customer's under "Bill to", each whole.
      expect(flat.split(name.replace(/\s+/g, "")).length - 1).toBe(2);
      const { stdout: boxes } = await run("pdftotext", ["-bbox", file, "-"]);
      const right = Math.max(
        ...[...boxes.matchAll(/xMax="([\d.]+)" yMax="[\d.]+">([^<]+)</g)]
          .filter((m) => name.includes(m[2]))
          .map((m) => Number(m[1])),
      );
      // (poppler's box and the font's advance widths differ by a fraction of a point)
      expect(right).toBeLessThanOrEqual(595.28 - 50 + 1);
    }
  });

  it("formats amounts in the minor unit and the local period", () => {
    // In the currency's minor unit (docs/contract.md §10), half-up: the ledger's exact balance and older documents.
    expect(formatAmount(1_234_567_890n, "USD")).toBe("1,234.57");
    expect(formatAmount(119_800_095n, "EUR")).toBe("119.80");
    expect(formatAmount(1_234_500n, "KWD")).toBe("1.235");
    expect(formatAmount(-5_000_000n, "EUR")).toBe("-5.00");
    expect(formatAmount(7_000_000n, "JPY")).toBe("7");
    expect(formatPeriod(new Date("2025-12-31T15:00:00Z"), new Date("2026-01-31T15:00:00Z"), "Asia/Tokyo")).toBe(
      "1 Jan 2026 - 31 Jan 2026",
    );
  });
});
