"use client";

import {
  createColumnHelper,
  flexRender,
  getCoreRowModel,
  getSortedRowModel,
  useReactTable,
  type SortingState,
} from "@tanstack/react-table";
import { Fragment, useMemo, useState, type ReactNode } from "react";
import { formatAmount, formatCount, formatMinutes, formatPercent, toMicros } from "@/lib/portal/format";
import { Amount } from "../calls/call-columns";
import { Card } from "../ui/card";
import { usePhoneLayout } from "../use-phone-layout";
import { byMetric, type ReportItem } from "./report-items";

const column = createColumnHelper<ReportItem>();
/** Rows shown before "Show all". */
const ROW_LIMIT = 50;

function KeyCell({
  item,
  expanded,
  onOpen,
}: {
  item: ReportItem;
  expanded: boolean;
  onOpen?: (item: ReportItem) => void;
}) {
  const note = item.coverage?.partial ? (
    <span className="ml-1.5 rounded-full bg-amber-50 px-1.5 py-0.5 text-xs font-medium text-amber-900">
      partial{item.coverage.note ? ` · ${item.coverage.note}` : ""}
    </span>
  ) : null;
  if (onOpen && item.prefixes) {
    const count = item.prefixes.length;
    return (
      <button
        type="button"
        aria-expanded={expanded}
        onClick={() => onOpen(item)}
        className="text-left font-medium text-brand-700 hover:text-brand-600"
        data-testid="destination-open"
      >
        {item.text}
        <span className="ml-1.5 text-xs font-normal text-slate-600">
          {count} {count === 1 ? "prefix" : "prefixes"}
        </span>
      </button>
    );
  }
  return (
    <span className={item.muted ? "text-slate-600" : ""}>
      {item.text}
      {item.detail ? <span className="ml-1.5 font-mono text-xs text-slate-600">{item.detail}</span> : null}
      {note}
    </span>
  );
}

const marginPercent = (item: ReportItem) =>
  item.margin === undefined ? "—" : (formatPercent(toMicros(item.margin), toMicros(item.price)) ?? "—");

/**
 * One currency's report rows, sortable exactly (money as micros) and never mixed with another currency: the
 * currency column says which one. From `sm` up a table, on a phone a card per row with the same figures.
 */
export function ReportTable({
  items,
  groupLabel,
  canReadCost,
  timeKeys,
  zoneName,
  revenueLabel,
  openId,
  onOpen,
  renderOpen,
}: {
  items: ReportItem[];
  groupLabel: string;
  canReadCost: boolean;
  timeKeys: boolean;
  zoneName: string;
  revenueLabel: string;
  /** The destination whose drill-down is open. */
  openId?: string | null;
  onOpen?: (item: ReportItem) => void;
  /** What opens under a row (a destination's prefixes and suppliers). */
  renderOpen?: (item: ReportItem) => ReactNode;
}) {
  const [showAll, setShowAll] = useState(false);
  const phone = usePhoneLayout();
  const [sorting, setSorting] = useState<SortingState>(timeKeys ? [] : [{ id: "price", desc: true }]);
  const columns = useMemo(
    () => [
      column.accessor("text", {
        id: "key",
        header: timeKeys ? `${groupLabel} (${zoneName})` : groupLabel,
        cell: (c) => <KeyCell item={c.row.original} expanded={openId === c.row.original.id} onOpen={onOpen} />,
      }),
      column.accessor("currency", { header: "Currency" }),
      column.accessor("calls", { header: "Calls", cell: (c) => formatCount(c.getValue()), meta: { numeric: true } }),
      column.accessor("billedSeconds", {
        header: "Billed minutes",
        cell: (c) => formatMinutes(c.getValue()),
        meta: { numeric: true },
      }),
      column.accessor("price", {
        header: revenueLabel,
        sortingFn: (a, b) => byMetric("price")(a.original, b.original),
        cell: (c) => formatAmount(toMicros(c.getValue()), c.row.original.currency),
        meta: { numeric: true },
      }),
      // Cost columns exist only for cost sessions (the API sends their values to no one else).
      ...(canReadCost
        ? [
            column.accessor((r) => r.buyCost, {
              id: "buyCost",
              header: "Buy cost",
              sortingFn: (a, b) =>
                byMetric("price")({ price: a.original.buyCost ?? 0 }, { price: b.original.buyCost ?? 0 }),
              cell: (c) =>
                c.getValue() === undefined ? "—" : formatAmount(toMicros(c.getValue()!), c.row.original.currency),
              meta: { numeric: true },
            }),
            column.accessor((r) => r.margin, {
              id: "margin",
              header: "Margin",
              sortingFn: (a, b) => byMetric("margin")(a.original, b.original),
              cell: (c) =>
                c.getValue() === undefined ? (
                  "—"
                ) : (
                  <Amount micros={toMicros(c.getValue()!)} currency={c.row.original.currency} signed />
                ),
              meta: { numeric: true },
            }),
            column.accessor((r) => r.margin, {
              id: "marginPercent",
              header: "Margin %",
              sortingFn: (a, b) => byMetric("marginPercent")(a.original, b.original),
              cell: (c) => marginPercent(c.row.original),
              meta: { numeric: true },
            }),
          ]
        : []),
    ],
    [canReadCost, groupLabel, timeKeys, zoneName, revenueLabel, openId, onOpen],
  );
  // eslint-disable-next-line react-hooks/incompatible-library
  const table = useReactTable({
    data: items,
    columns,
    state: { sorting },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getRowId: (r) => r.id,
  });
  const sortedRows = table.getRowModel().rows;
  // Long reports (hundreds of destinations) show their first rows in the chosen order, the rest on request.
  const rows = showAll ? sortedRows : sortedRows.slice(0, ROW_LIMIT);
  const more =
    sortedRows.length > ROW_LIMIT ? (
      <div className="flex justify-center border-t border-slate-100 p-2">
        <button
          type="button"
          onClick={() => setShowAll(!showAll)}
          className="rounded-md px-3 py-1.5 text-sm font-medium text-brand-700 hover:bg-slate-100"
          data-testid="report-show-all"
        >
          {showAll ? `Show the first ${ROW_LIMIT} rows` : `Show all ${formatCount(sortedRows.length)} rows`}
        </button>
      </div>
    ) : null;
  const openContent = (id: string, item: ReportItem) => (openId === id && renderOpen ? renderOpen(item) : null);
  if (!phone)
    return (
      <Card
        as="div"
        padding="none"
        className="overflow-x-auto"
        role="region"
        aria-label={`Report table, ${items[0]?.currency ?? ""}`}
        tabIndex={0}
      >
        <table className="w-full min-w-[40rem] text-sm" data-testid="report-table">
          <thead>
            {table.getHeaderGroups().map((g) => (
              <tr key={g.id} className="border-b border-slate-200 bg-slate-50">
                {g.headers.map((h) => {
                  const numeric = (h.column.columnDef.meta as { numeric?: boolean } | undefined)?.numeric;
                  const sorted = h.column.getIsSorted();
                  return (
                    <th
                      key={h.id}
                      scope="col"
                      aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : "none"}
                      className={`px-4 py-2 text-xs font-semibold uppercase tracking-wide text-slate-600 ${numeric ? "text-right" : "text-left"}`}
                    >
                      <button
                        type="button"
                        onClick={h.column.getToggleSortingHandler()}
                        className="inline-flex items-center gap-1 uppercase hover:text-slate-900"
                      >
                        {flexRender(h.column.columnDef.header, h.getContext())}
                        <span aria-hidden>{sorted === "asc" ? "▲" : sorted === "desc" ? "▼" : "↕"}</span>
                      </button>
                    </th>
                  );
                })}
              </tr>
            ))}
          </thead>
          <tbody>
            {rows.map((r) => {
              const loss = r.original.margin !== undefined && toMicros(r.original.margin) < 0n;
              const opened = openContent(r.id, r.original);
              return (
                <Fragment key={r.id}>
                  <tr
                    className={`border-b border-slate-100 last:border-0 ${loss ? "bg-red-50/60" : ""}`}
                    data-loss={loss ? "true" : undefined}
                    data-testid="report-row"
                  >
                    {r.getVisibleCells().map((c) => {
                      const numeric = (c.column.columnDef.meta as { numeric?: boolean } | undefined)?.numeric;
                      return (
                        <td key={c.id} data-column={c.column.id} className={`px-4 py-2 ${numeric ? "num" : ""}`}>
                          {flexRender(c.column.columnDef.cell, c.getContext())}
                        </td>
                      );
                    })}
                  </tr>
                  {opened ? (
                    <tr className="border-b border-slate-100 bg-slate-50">
                      <td colSpan={r.getVisibleCells().length} className="p-3">
                        {opened}
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              );
            })}
          </tbody>
        </table>
        {more}
      </Card>
    );
  return (
    <Card
      as="ul"
      padding="none"
      className="divide-y divide-slate-100 overflow-hidden"
      aria-label={`Report rows, ${items[0]?.currency ?? ""}`}
    >
      {rows.map((r) => {
        const item = r.original;
        const loss = item.margin !== undefined && toMicros(item.margin) < 0n;
        return (
          <li key={r.id} className="flex flex-col gap-1 px-4 py-3 text-sm" data-testid="report-card">
            {/* The drill-down opens inside the card, under its figures. */}
            <div className="flex items-start justify-between gap-3">
              <KeyCell item={item} expanded={openId === item.id} onOpen={onOpen} />
              <span className="shrink-0 font-semibold tabular-nums">
                {formatAmount(toMicros(item.price), item.currency)}
              </span>
            </div>
            <div className="flex flex-wrap justify-between gap-x-3 text-xs text-slate-600">
              <span>
                {formatCount(item.calls)} calls · {formatMinutes(item.billedSeconds)} min
              </span>
              {canReadCost && item.margin !== undefined ? (
                <span className={loss ? "text-red-700" : ""}>
                  Margin <Amount micros={toMicros(item.margin)} currency={item.currency} signed /> (
                  {marginPercent(item)})
                </span>
              ) : null}
            </div>
            {openContent(r.id, item)}
          </li>
        );
      })}
      {more ? <li>{more}</li> : null}
    </Card>
  );
}
