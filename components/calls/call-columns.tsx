"use client";

import type { ColumnDef } from "@tanstack/react-table";
import type { Call, CallWithCost } from "@/lib/calls/schemas";
import type { CallColumnId } from "@/lib/portal/call-columns";
import { formatAmount, formatDateTime, formatDuration, formatPrice, toMicros } from "@/lib/portal/format";

/** A row as the API sends it: the cost fields exist only for calls:read_cost sessions. */
export type CallRow = Call & Partial<Pick<CallWithCost, "buyCost" | "margin" | "supplierId">>;

/** Names the server hands a page: accounts for platform sessions, suppliers for cost sessions only. */
export type NameMap = Record<string, string>;

/** An amount, with a loss (below zero) marked for sight and screen readers when `signed`. */
function Signed({
  micros,
  text,
  signed,
  className = "",
}: {
  micros: bigint;
  text: string;
  signed: boolean;
  className?: string;
}) {
  if (signed && micros < 0n) {
    return (
      <span className={`${className} text-red-700`.trim()}>
        <span aria-hidden>▼ </span>
        {text}
        <span className="sr-only"> (loss)</span>
      </span>
    );
  }
  return <span>{text}</span>;
}

/** A per-call amount with fixed decimals (so a column lines up); losses marked when `signed`. */
export function Money({
  value,
  currency,
  signed = false,
}: {
  value: number | null | undefined;
  currency: string;
  signed?: boolean;
}) {
  if (value === null || value === undefined) return <span className="text-slate-500">—</span>;
  const micros = toMicros(value);
  return <Signed micros={micros} text={formatPrice(micros, currency)} signed={signed} className="font-medium" />;
}

/** An aggregate (total, balance) in the currency's own decimals. */
export function Amount({ micros, currency, signed = false }: { micros: bigint; currency: string; signed?: boolean }) {
  return <Signed micros={micros} text={formatAmount(micros, currency)} signed={signed} />;
}

/** The sell price, or "Unrated" for a call no rate matched (its 0 is not a price). */
export function Price({ call }: { call: Pick<Call, "price" | "currency" | "rated"> }) {
  if (!call.rated) {
    return (
      <span
        className="rounded bg-amber-50 px-1.5 py-0.5 text-xs font-medium text-amber-800"
        title="No rate matched: not charged yet, re-rated once a rate exists"
      >
        Unrated
      </span>
    );
  }
  return <Money value={call.price} currency={call.currency} />;
}

export function DirectionBadge({ direction }: { direction: Call["direction"] }) {
  const outbound = direction === "outbound";
  return (
    <span
      className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium ${outbound ? "bg-sky-50 text-sky-800" : "bg-violet-50 text-violet-800"}`}
    >
      <span aria-hidden>{outbound ? "↗" : "↙"}</span>
      {outbound ? "Outbound" : "Inbound"}
    </span>
  );
}

interface ColumnLayout {
  /** Fixed width in rem: rows are virtualised, so columns must not resize as rows come and go. */
  rem: number;
  numeric?: boolean;
}

export const COLUMN_LAYOUT: Record<CallColumnId, ColumnLayout> = {
  startTime: { rem: 10.5 },
  account: { rem: 11 },
  direction: { rem: 7 },
  from: { rem: 8 },
  to: { rem: 8 },
  duration: { rem: 6.5, numeric: true },
  billDuration: { rem: 5, numeric: true },
  hangupCause: { rem: 10.25 },
  price: { rem: 7.5, numeric: true },
  buyCost: { rem: 7.5, numeric: true },
  margin: { rem: 8.5, numeric: true },
  supplierId: { rem: 11 },
};

export interface ColumnContext {
  /** IANA zone for times (undefined: the viewer's). */
  timeZone: string | undefined;
  /** Short zone label for the time column's header. */
  zoneLabel: string;
  accounts: NameMap;
  suppliers: NameMap;
}

/** The call log's columns; names come from the maps the server passed (ids when unknown). */
export function buildColumnDefs(ctx: ColumnContext): Record<CallColumnId, ColumnDef<CallRow>> {
  return {
    startTime: {
      id: "startTime",
      header: `Start time (${ctx.zoneLabel})`,
      cell: ({ row }) => (
        <time dateTime={row.original.startTime}>
          {formatDateTime(row.original.startTime, { timeZone: ctx.timeZone })}
        </time>
      ),
    },
    account: {
      id: "account",
      header: "Account",
      cell: ({ row }) => (
        <span title={row.original.billingGroupId}>
          {ctx.accounts[row.original.billingGroupId] ?? row.original.billingGroupId}
        </span>
      ),
    },
    direction: {
      id: "direction",
      header: "Direction",
      cell: ({ row }) => <DirectionBadge direction={row.original.direction} />,
    },
    from: {
      id: "from",
      header: "From",
      cell: ({ row }) => <span className="font-mono text-xs">{row.original.from}</span>,
    },
    to: { id: "to", header: "To", cell: ({ row }) => <span className="font-mono text-xs">{row.original.to}</span> },
    duration: { id: "duration", header: "Duration", cell: ({ row }) => formatDuration(row.original.duration) },
    billDuration: {
      id: "billDuration",
      header: "Billed",
      cell: ({ row }) => formatDuration(row.original.billDuration),
    },
    hangupCause: {
      id: "hangupCause",
      header: "Hangup cause",
      cell: ({ row }) => <span className="text-xs text-slate-600">{row.original.hangupCause ?? "—"}</span>,
    },
    price: { id: "price", header: "Price", cell: ({ row }) => <Price call={row.original} /> },
    buyCost: {
      id: "buyCost",
      header: "Buy cost",
      cell: ({ row }) => <Money value={row.original.buyCost} currency={row.original.currency} />,
    },
    margin: {
      id: "margin",
      header: "Margin",
      cell: ({ row }) => <Money value={row.original.margin} currency={row.original.currency} signed />,
    },
    supplierId: {
      id: "supplierId",
      header: "Supplier",
      cell: ({ row }) => {
        const id = row.original.supplierId;
        return id ? <span title={id}>{ctx.suppliers[id] ?? id}</span> : <span className="text-slate-500">—</span>;
      },
    },
  };
}
