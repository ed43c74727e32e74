import { PDFDocument, PageSizes, rgb, type PDFPage } from "pdf-lib";
import { formatMinorUnits } from "@/lib/money/currency-decimals";
import { PdfText } from "./pdf-text";
import type { StoredInvoice, StoredLine } from "./read-invoices";
import { amountDueMicros } from "./serialize-invoice";
import { formatTaxRatePercent } from "./tax";

// The PDF of an invoice or note (pdf-lib). Built from the stored document, so the same document always renders the
// same (its dates are the issue time), and from the operator's contact of the day (how to pay, OPERATOR_CONTACT) if
// one is set. Text is Helvetica where WinAnsi encodes it, else an embedded Noto subset for its script (pdf-text.ts);
// a character no font covers prints as "?" (README "Known limitations").

const TITLES = { invoice: "Invoice", credit_note: "Credit note", debit_note: "Debit note" } as const;
const MARGIN = 50;
const ROW = 14;
const INK = rgb(0.1, 0.1, 0.12);
const MUTED = rgb(0.4, 0.4, 0.45);
const RULE = rgb(0.75, 0.75, 0.78);

/**
 * An amount in the currency's minor unit, thousands grouped: "1,234.51" (docs/contract.md §10). Document amounts are
 * whole minor units; the balance section (the ledger, exact) and documents issued before they were round half-up here.
 */
export function formatAmount(micros: bigint, currency: string): string {
  const text = formatMinorUnits(micros, currency);
  const [whole, frac] = text.replace("-", "").split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${micros < 0n ? "-" : ""}${grouped}${frac ? `.${frac}` : ""}`;
}

/** "1 Oct 2025 - 31 Oct 2025": the period's first and last local day in its zone. */
export function formatPeriod(start: Date, end: Date, timeZone: string): string {
  const day = new Intl.DateTimeFormat("en-GB", { timeZone, day: "numeric", month: "short", year: "numeric" });
  return `${day.format(start)} - ${day.format(new Date(end.getTime() - 1))}`;
}

function minutes(seconds: number): string {
  const m = Math.floor(Math.abs(seconds) / 60);
  const s = Math.abs(seconds) % 60;
  return `${seconds < 0 ? "-" : ""}${m}:${String(s).padStart(2, "0")}`;
}

/** Writes pages top to bottom, starting a new page (with the table header again) when one is full. */
class Writer {
  page!: PDFPage;
  y = 0;
  constructor(
    private readonly doc: PDFDocument,
    readonly fonts: PdfText,
    private readonly onNewPage: (w: Writer) => void = () => undefined,
  ) {
    this.newPage();
  }

  newPage(): void {
    this.page = this.doc.addPage(PageSizes.A4);
    this.y = this.page.getHeight() - MARGIN;
    this.onNewPage(this);
  }

  get width(): number {
    return this.page.getWidth();
  }

  /** Room for `height` more points, else a new page. */
  need(height: number): void {
    if (this.y - height < MARGIN + 20) this.newPage();
  }

  text(text: string, x: number, options: { size?: number; bold?: boolean; color?: typeof INK; right?: boolean } = {}) {
    const size = options.size ?? 9;
    const bold = options.bold ?? false;
    const at = options.right ? x - this.fonts.width(text, size, bold) : x;
    this.fonts.draw(this.page, text, at, this.y, { size, bold, color: options.color ?? INK });
  }

  /** Text cut to `width` points, with an ellipsis. */
  fit(text: string, width: number, size = 9): string {
    return this.fonts.fit(text, width, size);
  }

  /** Text wrapped to `width` points, one line after another `leading` points apart (a long legal name). */
  wrapped(text: string, x: number, width: number, leading: number, options: { size: number; bold?: boolean }): void {
    const lines = this.fonts.wrap(text, width, options.size, options.bold);
    lines.forEach((line, i) => {
      if (i > 0) {
        this.y -= leading;
        if (this.y < MARGIN + 20) this.newPage();
      }
      this.text(line, x, options);
    });
  }

  rule(): void {
    this.page.drawLine({
      start: { x: MARGIN, y: this.y + 4 },
      end: { x: this.width - MARGIN, y: this.y + 4 },
      thickness: 0.5,
      color: RULE,
    });
  }
}

/** Columns of the usage table: description, direction, calls, minutes, amount (right edges for numbers). */
const COLUMNS = { description: MARGIN, direction: 300, calls: 410, minutes: 470, amount: 545 };

function usageHeader(w: Writer, currency: string): void {
  w.text("Destination", COLUMNS.description, { bold: true, color: MUTED });
  w.text("Direction", COLUMNS.direction, { bold: true, color: MUTED });
  w.text("Calls", COLUMNS.calls, { bold: true, color: MUTED, right: true });
  w.text("Minutes", COLUMNS.minutes, { bold: true, color: MUTED, right: true });
  w.text(`Amount (${currency})`, COLUMNS.amount, { bold: true, color: MUTED, right: true });
  w.y -= 8;
  w.rule();
  w.y -= ROW - 6;
}

function usageRow(w: Writer, line: StoredLine, currency: string): void {
  w.text(w.fit(line.description, COLUMNS.direction - COLUMNS.description - 10), COLUMNS.description);
  w.text(line.direction ?? "", COLUMNS.direction);
  if (line.kind === "usage") {
    w.text(line.calls.toLocaleString("en-US"), COLUMNS.calls, { right: true });
    w.text(minutes(line.billedSeconds), COLUMNS.minutes, { right: true });
  }
  w.text(formatAmount(line.amountMicros, currency), COLUMNS.amount, { right: true });
  w.y -= ROW;
}

/** The document's PDF bytes; `contact`: how the customer reaches the operator to pay or ask (operatorContact()). */
export async function renderInvoicePdf(invoice: StoredInvoice, contact?: string): Promise<Uint8Array> {
  const doc = await createDocument(invoice);
  const fonts = await prepareFonts(doc, invoice, contact);
  // The usage table repeats its header on each page it runs onto.
  const table = { open: false };
  const w = new Writer(doc, fonts, (writer) => {
    if (table.open) usageHeader(writer, invoice.currency);
  });
  drawHeading(w, invoice);
  drawUsage(w, invoice, table);
  drawTotals(w, invoice);
  drawBalance(w, invoice);
  if (contact) drawContact(w, contact);
  numberPages(doc, fonts, invoice);
  return doc.save();
}

/** A new PDF with the document's metadata; its dates are the issue time. */
async function createDocument(invoice: StoredInvoice): Promise<PDFDocument> {
  const doc = await PDFDocument.create();
  const title = `${TITLES[invoice.kind]} ${invoice.number}`;
  doc.setTitle(title);
  doc.setAuthor(invoice.issuerName);
  doc.setSubject(`${invoice.customerName}, ${formatPeriod(invoice.periodStart, invoice.periodEnd, invoice.timeZone)}`);
  doc.setCreator("Callbook");
  doc.setProducer("Callbook (pdf-lib)");
  doc.setCreationDate(invoice.issuedAt);
  doc.setModificationDate(invoice.issuedAt);
  return doc;
}

/** The fonts the document's own texts need (names, address, line descriptions), embedded before drawing. */
async function prepareFonts(doc: PDFDocument, invoice: StoredInvoice, contact?: string): Promise<PdfText> {
  const fonts = await PdfText.create(doc);
  await fonts.prepare([
    { text: invoice.issuerName, bold: true },
    { text: invoice.customerName, bold: true },
    { text: invoice.issuerAddress ?? "", bold: false },
    { text: contact ?? "", bold: false },
    ...invoice.lines.map((l) => ({ text: l.description, bold: false })),
  ]);
  return fonts;
}

/** Issuer (left) and the document's title, number and dates (right), then whom it bills. */
function drawHeading(w: Writer, invoice: StoredInvoice): void {
  const right = w.width - MARGIN;
  const heading = TITLES[invoice.kind].toUpperCase();
  w.text(heading, right, { size: 16, bold: true, right: true });
  w.wrapped(invoice.issuerName, MARGIN, right - MARGIN - w.fonts.width(heading, 16, true) - 24, 18, {
    size: 16,
    bold: true,
  });
  w.y -= 18;
  const issuerLines = invoice.issuerAddress ? invoice.issuerAddress.split("\n") : [];
  const facts = [
    `No. ${invoice.number}`,
    `Issued ${new Intl.DateTimeFormat("en-GB", { timeZone: invoice.timeZone, dateStyle: "medium" }).format(invoice.issuedAt)}`,
    `Period ${formatPeriod(invoice.periodStart, invoice.periodEnd, invoice.timeZone)}`,
    `Time zone ${invoice.timeZone}`,
    ...(invoice.invoiceNumber ? [`Corrects invoice ${invoice.invoiceNumber}`] : []),
  ];
  for (let i = 0; i < Math.max(issuerLines.length, facts.length); i++) {
    if (issuerLines[i]) w.text(issuerLines[i], MARGIN, { color: MUTED });
    if (facts[i]) w.text(facts[i], right, { right: true });
    w.y -= 12;
  }
  w.y -= 12;
  w.text("Bill to", MARGIN, { bold: true, color: MUTED });
  w.y -= 13;
  // A legal name runs over as many lines as it needs (200 characters and more), never off the page.
  w.wrapped(invoice.customerName, MARGIN, right - MARGIN, 13, { size: 11, bold: true });
  w.y -= 12;
  w.text(`Account ${invoice.billingGroupId}`, MARGIN, { color: MUTED });
  w.y -= 12;
  w.text(
    `${invoice.billingMode === "prepaid" ? "Prepaid" : "Postpaid"} account, amounts in ${invoice.currency}`,
    MARGIN,
    { color: MUTED },
  );
  w.y -= 26;
}

/** The usage table: usage and rounding lines, which make the subtotal; `table.open` while it may span pages. */
function drawUsage(w: Writer, invoice: StoredInvoice, table: { open: boolean }): void {
  const usage = invoice.lines.filter((l) => l.kind === "usage" || l.kind === "rounding");
  w.text(invoice.kind === "invoice" ? "Calls of the period" : "Changes to the invoiced calls", MARGIN, {
    size: 11,
    bold: true,
  });
  w.y -= 18;
  table.open = true;
  usageHeader(w, invoice.currency);
  if (usage.length === 0) {
    w.text("No calls in this period.", COLUMNS.description, { color: MUTED });
    w.y -= ROW;
  }
  for (const line of usage) {
    w.need(ROW);
    usageRow(w, line, invoice.currency);
  }
  table.open = false;
}

/** Subtotal, tax, total and (invoices) the amount due. */
function drawTotals(w: Writer, invoice: StoredInvoice): void {
  const { currency } = invoice;
  w.need(ROW * 6);
  w.y -= 4;
  w.rule();
  w.y -= ROW - 4;
  const total = (label: string, micros: bigint, bold = false) => {
    w.text(label, COLUMNS.minutes, { right: true, bold });
    w.text(`${formatAmount(micros, currency)} ${currency}`, COLUMNS.amount, { right: true, bold });
    w.y -= ROW;
  };
  total("Subtotal", invoice.subtotalMicros);
  total(`Tax ${formatTaxRatePercent(invoice.taxRatePpm)} %`, invoice.taxMicros);
  total("Total", invoice.totalMicros, true);
  if (invoice.kind === "invoice")
    total(
      invoice.billingMode === "prepaid" ? "Amount due (prepaid account)" : "Amount due",
      amountDueMicros(invoice),
      true,
    );
  w.y -= ROW;
}

/** The balance over the period (invoices only), with its top-up and adjustment lines. */
function drawBalance(w: Writer, invoice: StoredInvoice): void {
  if (!invoice.balance) return;
  const { currency } = invoice;
  const ledger = invoice.lines.filter((l) => l.kind === "topup" || l.kind === "adjustment");
  w.need(ROW * 8);
  w.text("Balance", MARGIN, { size: 11, bold: true });
  w.y -= 18;
  const row = (label: string, micros: bigint, bold = false, at?: Date | null) => {
    w.need(ROW);
    w.text(w.fit(label, 330), MARGIN, { bold });
    if (at) w.text(at.toISOString().slice(0, 10), 390);
    w.text(`${formatAmount(micros, currency)} ${currency}`, COLUMNS.amount, { right: true, bold });
    w.y -= ROW;
  };
  row("Opening balance", invoice.balance.opening, true);
  for (const l of ledger) row(`  ${l.description}`, l.amountMicros, false, l.occurredAt);
  row("Top-ups", invoice.balance.topups);
  row("Adjustments", invoice.balance.adjustments);
  row("Call debits (booked in the period)", invoice.balance.debits);
  row("Closing balance", invoice.balance.closing, true);
}

/** Whom to contact to pay or ask about the document, under everything else. */
function drawContact(w: Writer, contact: string): void {
  w.need(ROW * 3);
  w.y -= ROW;
  w.text("Questions or paying", MARGIN, { size: 11, bold: true });
  w.y -= 16;
  w.wrapped(`Contact ${contact}`, MARGIN, w.width - 2 * MARGIN, 12, { size: 9 });
  w.y -= ROW;
}

/** "INV-000001 - page 1 of 2" at the foot of each page, once all are drawn. */
function numberPages(doc: PDFDocument, fonts: PdfText, invoice: StoredInvoice): void {
  const pages = doc.getPages();
  pages.forEach((page, i) => {
    const label = `${invoice.number} - page ${i + 1} of ${pages.length}`;
    page.drawText(label, {
      x: page.getWidth() - MARGIN - fonts.regular.widthOfTextAtSize(label, 8),
      y: MARGIN - 20,
      size: 8,
      font: fonts.regular,
      color: MUTED,
    });
  });
}
