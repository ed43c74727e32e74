"use client";

import type { ColumnDef } from "@tanstack/react-table";
import type { Call, CallWithCost } from "@/lib/calls/schemas";
import type { CallColumnId } from "@/lib/portal/call-columns";
import { formatDateTimeCompact, formatDuration, formatMoney, toMicros } from "@/lib/portal/format";

/** A row as the API sends it: the cost fields exist only for calls:read_cost sessions. */
export type CallRow = Call & Partial<Pick<CallWithCost, "buyCost" | "margin" | "supplierId">>;

export function Money({ value, currency, signed = false }: { value: number | null | undefined; currency: string; signed?: boolean }) {
  if (value === null || value === undefined) return <span className="text-slate-400">—</span>;
  const micros = toMicros(value);
  const text = formatMoney(micros, currency);
  if (signed && micros < 0n) {
    return (
      <span className="font-medium text-red-700">
        <span aria-hidden>▼ </span>
        {text}
        <span className="sr-only"> (loss)</span>
      </span>
    );
  }
  return <span>{text}</span>;
}

export function DirectionBadge({ direction }: { direction: Call["direction"] }) {
  const outbound = direction === "outbound";
  return (
    <span
      className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium ${outbound ? "bg-sky-50 text-sky-700" : "bg-violet-50 text-violet-700"}`}
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
  direction: { rem: 7 },
  from: { rem: 8 },
  to: { rem: 8 },
  duration: { rem: 5.75, numeric: true },
  billDuration: { rem: 5, numeric: true },
  hangupCause: { rem: 10.25 },
  price: { rem: 7, numeric: true },
  buyCost: { rem: 7, numeric: true },
  margin: { rem: 7.5, numeric: true },
  supplierId: { rem: 11 },
};

export const COLUMN_DEFS: Record<CallColumnId, ColumnDef<CallRow>> = {
  startTime: { id: "startTime", header: "Start time", cell: ({ row }) => <time dateTime={row.original.startTime}>{formatDateTimeCompact(row.original.startTime)}</time> },
  direction: { id: "direction", header: "Direction", cell: ({ row }) => <DirectionBadge direction={row.original.direction} /> },
  from: { id: "from", header: "From", cell: ({ row }) => <span className="font-mono text-xs">{row.original.from}</span> },
  to: { id: "to", header: "To", cell: ({ row }) => <span className="font-mono text-xs">{row.original.to}</span> },
  duration: { id: "duration", header: "Duration", cell: ({ row }) => formatDuration(row.original.duration) },
  billDuration: { id: "billDuration", header: "Billed", cell: ({ row }) => formatDuration(row.original.billDuration) },
  hangupCause: {
    id: "hangupCause",
    header: "Hangup cause",
    cell: ({ row }) => <span className="text-xs text-slate-600">{row.original.hangupCause ?? "—"}</span>,
  },
  price: { id: "price", header: "Price", cell: ({ row }) => <Money value={row.original.price} currency={row.original.currency} /> },
  buyCost: { id: "buyCost", header: "Buy cost", cell: ({ row }) => <Money value={row.original.buyCost} currency={row.original.currency} /> },
  margin: { id: "margin", header: "Margin", cell: ({ row }) => <Money value={row.original.margin} currency={row.original.currency} signed /> },
  supplierId: {
    id: "supplierId",
    header: "Supplier",
    cell: ({ row }) => <span className="font-mono text-xs text-slate-600">{row.original.supplierId ?? "—"}</span>,
  },
};
