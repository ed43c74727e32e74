"use client";

import type { ColumnDef } from "@tanstack/react-table";
import type { Call, CallWithCost } from "@/lib/calls/schemas";
import { CALL_COLUMN_LABEL, CALL_COLUMN_REM, type CallColumnId } from "@/lib/portal/call-columns";
import { CALL_STATUS_LABEL, answeredFromListing, callStatus, type CallStatus } from "@/lib/portal/call-status";
import {
  amountColumn,
  formatAmount,
  formatColumnAmount,
  formatDateTime,
  formatDuration,
  formatPhoneNumber,
  formatPrice,
  toMicros,
  type AmountColumn,
} from "@/lib/portal/format";

/** A row as the API sends it: the cost fields exist only for calls:read_cost sessions. */
export type CallRow = Call & Partial<Pick<CallWithCost, "buyCost" | "margin" | "supplierId">>;

/** Names the server hands a page: the accounts in reach, suppliers for cost sessions only. */
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

/**
 * A per-call amount in the currency's decimals, more where the exact amount has them; in a list, as its `column`
 * reads (one precision, the code among currencies: amountColumn). Losses marked when `signed`.
 */
export function Money({
  value,
  currency,
  signed = false,
  column,
}: {
  value: number | null | undefined;
  currency: string;
  signed?: boolean;
  column?: AmountColumn;
}) {
  if (value === null || value === undefined) return <span className="text-slate-500">—</span>;
  const micros = toMicros(value);
  const text = column ? formatColumnAmount(micros, currency, column) : formatPrice(micros, currency);
  return <Signed micros={micros} text={text} signed={signed} className="font-medium" />;
}

/** The per-call amount columns of the calls listed: how each reads (lib/portal/format amountColumn). */
export interface AmountColumns {
  price: AmountColumn;
  buyCost: AmountColumn;
  margin: AmountColumn;
}

export function amountColumnsOf(rows: CallRow[]): AmountColumns {
  return {
    price: amountColumn(rows.map((r) => ({ value: r.rated ? r.price : null, currency: r.currency }))),
    buyCost: amountColumn(rows.map((r) => ({ value: r.buyCost, currency: r.currency }))),
    margin: amountColumn(rows.map((r) => ({ value: r.margin, currency: r.currency }))),
  };
}

/** An aggregate (total, balance) in the currency's own decimals. */
export function Amount({ micros, currency, signed = false }: { micros: bigint; currency: string; signed?: boolean }) {
  return <Signed micros={micros} text={formatAmount(micros, currency)} signed={signed} />;
}

/** The sell price, or "Unrated" for a call no rate matched (its 0 is not a price). */
export function Price({ call, column }: { call: Pick<Call, "price" | "currency" | "rated">; column?: AmountColumn }) {
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
  return <Money value={call.price} currency={call.currency} column={column} />;
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

const STATUS_TONE: Record<CallStatus, string> = {
  answered: "bg-emerald-50 text-emerald-800",
  busy: "bg-amber-50 text-amber-900",
  no_answer: "bg-slate-100 text-slate-700",
  cancelled: "bg-slate-100 text-slate-700",
  failed: "bg-red-50 text-red-800",
};

/** The outcome people read (Answered, Busy, ...), derived from the cause and the answer (lib/portal/call-status). */
export function StatusBadge({ status, title }: { status: CallStatus; title?: string }) {
  return (
    <span
      className={`inline-flex rounded-full px-2 py-0.5 text-xs font-medium ${STATUS_TONE[status]}`}
      title={title}
      data-status={status}
    >
      {CALL_STATUS_LABEL[status]}
    </span>
  );
}

/** A listed call's status: the list has no answer time, so its billed seconds tell (answeredFromListing). */
export function listedCallStatus(call: Pick<Call, "billDuration" | "rated" | "hangupCause" | "q850Cause">): CallStatus {
  return callStatus({ answered: answeredFromListing(call), hangupCause: call.hangupCause, q850Cause: call.q850Cause });
}

/** A number in E.164 ("+442071234567"), with the destination's name from the rate card under it when known. */
export function PhoneNumber({ number, name, inline = false }: { number: string; name?: string; inline?: boolean }) {
  const shown = formatPhoneNumber(number);
  if (inline) {
    return (
      <span>
        <span className="font-mono">{shown}</span>
        {name ? <span className="ml-2 text-slate-600">{name}</span> : null}
      </span>
    );
  }
  return (
    <span className="flex min-w-0 flex-col leading-tight">
      <span className="truncate font-mono text-xs">{shown}</span>
      {name ? <span className="truncate text-[11px] text-slate-600">{name}</span> : null}
    </span>
  );
}

const NUMERIC: ReadonlySet<CallColumnId> = new Set(["duration", "billDuration", "price", "buyCost", "margin"]);

/** Width (rem) and alignment of each column. */
export const COLUMN_LAYOUT: Record<CallColumnId, { rem: number; numeric: boolean }> = Object.fromEntries(
  (Object.keys(CALL_COLUMN_REM) as CallColumnId[]).map((id) => [
    id,
    { rem: CALL_COLUMN_REM[id], numeric: NUMERIC.has(id) },
  ]),
) as Record<CallColumnId, { rem: number; numeric: boolean }>;

export interface ColumnContext {
  /** IANA zone for times (undefined: the viewer's). */
  timeZone: string | undefined;
  /** Short zone label for the time column's header. */
  zoneLabel: string;
  accounts: NameMap;
  suppliers: NameMap;
  /** The rate card's name of a call's destination, once known. */
  destinationName: (call: CallRow) => string | undefined;
  /** How the amount columns read over the calls loaded (amountColumnsOf). */
  amounts: AmountColumns;
}

/** The call log's columns; names come from the maps the server passed (ids when unknown). */
export function buildColumnDefs(ctx: ColumnContext): Record<CallColumnId, ColumnDef<CallRow>> {
  return {
    startTime: {
      id: "startTime",
      header: `${CALL_COLUMN_LABEL.startTime} (${ctx.zoneLabel})`,
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
      cell: ({ row }) => <span className="font-mono text-xs">{formatPhoneNumber(row.original.from)}</span>,
    },
    to: {
      id: "to",
      header: "To",
      cell: ({ row }) => <PhoneNumber number={row.original.to} name={ctx.destinationName(row.original)} />,
    },
    duration: { id: "duration", header: "Duration", cell: ({ row }) => formatDuration(row.original.duration) },
    billDuration: {
      id: "billDuration",
      header: "Billed",
      cell: ({ row }) => formatDuration(row.original.billDuration),
    },
    status: {
      id: "status",
      header: "Status",
      cell: ({ row }) => (
        <StatusBadge
          status={listedCallStatus(row.original)}
          title={
            row.original.hangupCause ??
            (row.original.q850Cause === null ? undefined : `Q.850 ${row.original.q850Cause}`)
          }
        />
      ),
    },
    hangupCause: {
      id: "hangupCause",
      header: "Hangup cause",
      cell: ({ row }) => <span className="text-xs text-slate-600">{row.original.hangupCause ?? "—"}</span>,
    },
    price: {
      id: "price",
      header: "Price",
      cell: ({ row }) => <Price call={row.original} column={ctx.amounts.price} />,
    },
    buyCost: {
      id: "buyCost",
      header: "Buy cost",
      cell: ({ row }) => (
        <Money value={row.original.buyCost} currency={row.original.currency} column={ctx.amounts.buyCost} />
      ),
    },
    margin: {
      id: "margin",
      header: "Margin",
      cell: ({ row }) => (
        <Money value={row.original.margin} currency={row.original.currency} signed column={ctx.amounts.margin} />
      ),
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
