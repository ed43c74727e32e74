import { sql } from "drizzle-orm";
import type { Principal } from "@/lib/auth/principal";
import { andReach, cursorScope, groupsCondition, reachOf, resolveListing } from "@/lib/auth/reach";
import { decodeKeysetCursor, encodeKeysetCursor, scopeHash } from "@/lib/http/keyset-cursor";
import { queryRows, type Executor } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import type { DocumentKind, NewDocument, NewLine } from "./insert-document";

// Reading issued documents for /v1/invoices and the portal. A bound key sees its own group's only; another group's
// id answers 404 like an unknown one (docs/contract.md §3).

/** An issued document: what was issued (NewDocument, its lines apart) with its number, series position and instant. */
export interface StoredDocument extends Omit<NewDocument, "lines"> {
  id: string;
  seq: string;
  number: string;
  issuedAt: Date;
}

/** A line as it was issued. */
export type StoredLine = NewLine;

export interface StoredInvoice extends StoredDocument {
  lines: StoredLine[];
  /** Notes of an invoice, oldest first; empty on a note. */
  notes: StoredDocument[];
  /** The number of the invoice a note corrects; null on an invoice. */
  invoiceNumber: string | null;
}

const COLUMNS = sql`id, seq::text AS seq, kind, number, billing_group_id, invoice_id, period_start, period_end, time_zone,
  billing_mode, tax_rate_ppm, currency, customer_name, issuer_name, issuer_address, subtotal_micros::text AS subtotal,
  tax_micros::text AS tax, total_micros::text AS total, opening_balance_micros::text AS opening,
  topups_micros::text AS topups, adjustments_micros::text AS adjustments, debits_micros::text AS debits,
  closing_balance_micros::text AS closing, remainder_micros::text AS remainder, issued_at`;

interface DocumentRow {
  id: string;
  seq: string;
  kind: DocumentKind;
  number: string;
  billing_group_id: string;
  invoice_id: string | null;
  period_start: Date | string;
  period_end: Date | string;
  time_zone: string;
  billing_mode: "prepaid" | "postpaid";
  tax_rate_ppm: number;
  currency: string;
  customer_name: string;
  issuer_name: string;
  issuer_address: string;
  subtotal: string;
  tax: string;
  total: string;
  opening: string | null;
  topups: string | null;
  adjustments: string | null;
  debits: string | null;
  closing: string | null;
  remainder: string;
  issued_at: Date | string;
}

function toDocument(r: DocumentRow): StoredDocument {
  return {
    id: r.id,
    seq: r.seq,
    kind: r.kind,
    number: r.number,
    billingGroupId: r.billing_group_id,
    invoiceId: r.invoice_id,
    periodStart: new Date(r.period_start),
    periodEnd: new Date(r.period_end),
    timeZone: r.time_zone,
    billingMode: r.billing_mode,
    taxRatePpm: Number(r.tax_rate_ppm),
    currency: r.currency,
    customerName: r.customer_name,
    issuerName: r.issuer_name,
    issuerAddress: r.issuer_address,
    subtotalMicros: BigInt(r.subtotal),
    remainderMicros: BigInt(r.remainder),
    taxMicros: BigInt(r.tax),
    totalMicros: BigInt(r.total),
    balance:
      r.opening === null
        ? null
        : {
            opening: BigInt(r.opening),
            topups: BigInt(r.topups ?? 0),
            adjustments: BigInt(r.adjustments ?? 0),
            debits: BigInt(r.debits ?? 0),
            closing: BigInt(r.closing ?? 0),
          },
    issuedAt: new Date(r.issued_at),
  };
}

const INVOICE_ID = /^inv_[0-9a-z]{1,64}$/;

function notFound(id: string): ApiError {
  return new ApiError("not_found", `No invoice with id ${JSON.stringify(id.slice(0, 64))}.`);
}

/** One document with its lines (and an invoice's notes); ApiError not_found when the principal may not see it. */
export async function getInvoice(db: Executor, principal: Principal, id: string): Promise<StoredInvoice> {
  // Only what newId("inv") writes reaches SQL: a NUL or a lone surrogate would be refused by the database (a 500).
  if (!INVOICE_ID.test(id)) throw notFound(id);
  const [row] = await queryRows<DocumentRow>(
    db,
    sql`SELECT ${COLUMNS} FROM invoices WHERE id = ${id} ${andReach(reachOf(principal), sql.raw("billing_group_id"))}`,
  );
  if (!row) throw notFound(id);
  const lines = await queryRows<{
    kind: StoredLine["kind"];
    direction: StoredLine["direction"];
    prefix: string | null;
    description: string;
    calls: string;
    billed_seconds: string;
    amount: string;
    exact: string | null;
    occurred_at: Date | string | null;
  }>(
    db,
    sql`SELECT kind, direction, prefix, description, calls::text AS calls, billed_seconds::text AS billed_seconds,
               amount_micros::text AS amount, exact_micros::text AS exact, occurred_at
        FROM invoice_lines WHERE invoice_id = ${id} ORDER BY line_no`,
  );
  const notes =
    row.kind === "invoice"
      ? await queryRows<DocumentRow>(
          db,
          sql`SELECT ${COLUMNS} FROM invoices WHERE invoice_id = ${id} ORDER BY invoices.seq`,
        )
      : [];
  const [corrected] = row.invoice_id
    ? await queryRows<{ number: string }>(db, sql`SELECT number FROM invoices WHERE id = ${row.invoice_id}`)
    : [];
  return {
    ...toDocument(row),
    lines: lines.map((l) => ({
      kind: l.kind,
      direction: l.direction,
      prefix: l.prefix,
      description: l.description,
      calls: Number(l.calls),
      billedSeconds: Number(l.billed_seconds),
      amountMicros: BigInt(l.amount),
      exactMicros: l.exact === null ? null : BigInt(l.exact),
      occurredAt: l.occurred_at === null ? null : new Date(l.occurred_at),
    })),
    notes: notes.map(toDocument),
    invoiceNumber: corrected?.number ?? null,
  };
}

export interface InvoiceListing {
  documents: StoredDocument[];
  hasMore: boolean;
  nextCursor?: string;
}

/**
 * The documents the principal may see, newest first (issued_at, then seq, descending), paged by a signed cursor bound
 * to the key's reach and `account` (lib/http/keyset-cursor.ts). `account` narrows a platform key; a bound key naming
 * another group gets an empty page.
 */
export async function listInvoices(
  db: Executor,
  principal: Principal,
  options: { pageSize: number; cursor?: string; account?: string },
): Promise<InvoiceListing> {
  const account = options.account || undefined;
  const reach = reachOf(principal);
  const resolved = resolveListing(reach, account);
  if ("outside" in resolved) return { documents: [], hasMore: false };
  const inGroups = groupsCondition(resolved.groups, sql.raw("billing_group_id"));
  const hash = scopeHash({ listing: "invoices", group: cursorScope(reach), account });
  const after = options.cursor ? decodeKeysetCursor(options.cursor, hash) : undefined;
  // Qualified: the select list names its text `seq` the same (ORDER BY would sort that text: "9" after "10").
  const rows = await queryRows<DocumentRow>(
    db,
    sql`SELECT ${COLUMNS} FROM invoices WHERE true
        ${inGroups === undefined ? sql`` : sql`AND ${inGroups}`}
        ${after ? sql`AND (invoices.issued_at, invoices.seq) < (${after.at.toISOString()}::timestamptz, ${after.id.toString()}::bigint)` : sql``}
        ORDER BY invoices.issued_at DESC, invoices.seq DESC LIMIT ${options.pageSize + 1}`,
  );
  const hasMore = rows.length > options.pageSize;
  const documents = rows.slice(0, options.pageSize).map(toDocument);
  const last = documents.at(-1);
  return {
    documents,
    hasMore,
    nextCursor: hasMore && last ? encodeKeysetCursor({ at: last.issuedAt, id: BigInt(last.seq) }, hash) : undefined,
  };
}
