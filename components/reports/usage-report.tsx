"use client";

import {
  createColumnHelper,
  flexRender,
  getCoreRowModel,
  getSortedRowModel,
  useReactTable,
  type SortingState,
} from "@tanstack/react-table";
import { useRouter, useSearchParams } from "next/navigation";
import { useId, useMemo, useState } from "react";
import { formatAmount, formatCount, formatMinutes, toMicros } from "@/lib/portal/format";
import { parseReportFilters, reportCsv, reportToUsageQuery, type ReportFilters } from "@/lib/portal/report";
import type { UsageGroupBy, UsageReport as UsageReportJson, UsageRowWithCost } from "@/lib/usage/schemas";
import { ApiProblem } from "../api/api-client";
import { useUsage } from "./use-usage";
import type { AccountChoice } from "../balance/balance-widget";
import { Amount } from "../calls/call-columns";
import { useTimeZone } from "../portal/time-zone";
import { useIsClient } from "../use-is-client";
import { cardClass } from "@/components/ui/card";
import { primaryButtonClass } from "@/components/ui/button";
import { Field, inputClass as uiInputClass } from "@/components/ui/field";
import { AccountField, DateRangeFields, DirectionField } from "../portal/filter-fields";

/** A row as GET /v1/usage sends it: buyCost and margin exist only for calls:read_cost sessions. */
type Row = UsageReportJson["rows"][number] & Partial<Pick<UsageRowWithCost, "buyCost" | "margin">>;

const GROUPS: { id: UsageGroupBy; label: string; costOnly?: boolean; platformOnly?: boolean }[] = [
  { id: "day", label: "Day" },
  { id: "month", label: "Month" },
  { id: "destination", label: "Destination" },
  { id: "direction", label: "Direction" },
  { id: "hangupCause", label: "Hangup cause" },
  { id: "account", label: "Account", platformOnly: true },
  { id: "supplier", label: "Supplier", costOnly: true },
];

const inputClass = `mt-1 ${uiInputClass()}`;

/** Sorts money exactly (micros), not as floats. */
function byMicros(a: number | null | undefined, b: number | null | undefined): number {
  const x = a === null || a === undefined ? null : toMicros(a);
  const y = b === null || b === undefined ? null : toMicros(b);
  if (x === y) return 0;
  if (x === null) return -1;
  if (y === null) return 1;
  return x < y ? -1 : 1;
}

export function UsageReport({ canReadCost, accounts }: { canReadCost: boolean; accounts?: AccountChoice[] }) {
  const id = useId();
  const router = useRouter();
  const searchParams = useSearchParams();
  const filters = useMemo(() => parseReportFilters(searchParams), [searchParams]);
  const zone = useTimeZone();
  const isClient = useIsClient();
  const groups = GROUPS.filter((g) => (!g.costOnly || canReadCost) && (!g.platformOnly || accounts));
  const groupBy = groups.some((g) => g.id === filters.groupBy) ? filters.groupBy : "day";
  const usageQuery = reportToUsageQuery({ ...filters, groupBy }, zone.mode === "utc" ? "UTC" : zone.name);

  const report = useUsage(usageQuery, { enabled: isClient });

  const set = (patch: Partial<ReportFilters>) => {
    const next = { ...filters, groupBy, ...patch };
    const params = new URLSearchParams();
    if (next.groupBy !== "day") params.set("groupBy", next.groupBy);
    if (next.from) params.set("from", next.from);
    if (next.until) params.set("until", next.until);
    if (next.direction) params.set("direction", next.direction);
    if (next.account) params.set("account", next.account);
    router.replace(`/reports${params.size ? `?${params}` : ""}`, { scroll: false });
  };

  const rows = (report.data?.rows ?? []) as Row[];
  const groupLabel = groups.find((g) => g.id === groupBy)?.label ?? "Group";
  const csvHref = useMemo(() => {
    if (!report.data || typeof window === "undefined") return null;
    return `data:text/csv;charset=utf-8,${encodeURIComponent(reportCsv(report.data.rows as Row[], groupBy, canReadCost))}`;
  }, [report.data, groupBy, canReadCost]);

  return (
    <div className="flex flex-col gap-4">
      <form
        aria-label="Report filters"
        onSubmit={(e) => e.preventDefault()}
        className="grid grid-cols-2 gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-3 lg:grid-cols-6 lg:items-end"
      >
        <Field id={`${id}-group`} label="Group by">
          <select
            id={`${id}-group`}
            value={groupBy}
            onChange={(e) => set({ groupBy: e.target.value as UsageGroupBy })}
            className={inputClass}
          >
            {groups.map((g) => (
              <option key={g.id} value={g.id}>
                {g.label}
              </option>
            ))}
          </select>
        </Field>
        <DateRangeFields id={id} from={filters.from} until={filters.until} zone={zone.short} onChange={set} />
        <DirectionField id={id} value={filters.direction} onChange={(direction) => set({ direction })} />
        {accounts ? (
          <AccountField id={id} accounts={accounts} value={filters.account} onChange={(account) => set({ account })} />
        ) : null}
        <div className="flex items-end">
          {csvHref ? (
            <a
              href={csvHref}
              download={`usage-by-${groupBy}.csv`}
              className={`${primaryButtonClass({ compact: true, block: true })} text-center`}
              data-testid="report-csv"
            >
              Download CSV
            </a>
          ) : null}
        </div>
      </form>

      {report.isPending ? (
        <p className="rounded-xl border border-slate-200 bg-white p-6 text-sm text-slate-600 shadow-sm" role="status">
          Adding up calls…
        </p>
      ) : report.isError ? (
        <div role="alert" className="rounded-xl border border-slate-200 bg-white p-6 text-sm shadow-sm">
          <p className="font-medium text-red-800">The report could not be loaded</p>
          <p className="mt-1 text-slate-600">
            {report.error instanceof ApiProblem ? report.error.detail : "The network request failed."}
          </p>
          <button
            type="button"
            onClick={() => void report.refetch()}
            className="mt-3 rounded-lg bg-slate-900 px-3 py-1.5 text-white"
          >
            Retry
          </button>
        </div>
      ) : rows.length === 0 ? (
        <p
          className="rounded-xl border border-slate-200 bg-white p-6 text-sm text-slate-600 shadow-sm"
          data-testid="report-empty"
        >
          No calls match this report&apos;s filters.
        </p>
      ) : (
        <>
          <ReportTotals report={report.data} canReadCost={canReadCost} />
          <ReportChart rows={rows} groupLabel={groupLabel} timeKeys={groupBy === "day" || groupBy === "month"} />
          <ReportTable
            rows={rows}
            groupLabel={groupLabel}
            canReadCost={canReadCost}
            timeKeys={groupBy === "day" || groupBy === "month"}
            zoneName={zone.name}
          />
        </>
      )}
    </div>
  );
}

function keyText(row: Row): string {
  if (row.key === null) return row.label ?? "None";
  return row.label && row.label !== row.key ? `${row.label} (${row.key})` : row.key;
}

function ReportTotals({ report, canReadCost }: { report: UsageReportJson; canReadCost: boolean }) {
  return (
    <section aria-labelledby="report-totals" className={cardClass} data-testid="report-totals">
      <h2 id="report-totals" className="text-sm font-medium text-slate-600">
        Totals
      </h2>
      {report.totals.map((t) => {
        const cost = t as typeof t & { buyCost?: number; margin?: number };
        return (
          <dl key={t.currency} className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6">
            <div>
              <dt className="text-xs text-slate-600">Calls</dt>
              <dd className="font-semibold tabular-nums">{formatCount(t.calls)}</dd>
            </div>
            <div>
              <dt className="text-xs text-slate-600">Billed minutes</dt>
              <dd className="font-semibold tabular-nums">{formatMinutes(t.billedSeconds)}</dd>
            </div>
            <div>
              <dt className="text-xs text-slate-600">Spend ({t.currency})</dt>
              <dd className="font-semibold tabular-nums">{formatAmount(toMicros(t.price), t.currency)}</dd>
            </div>
            {canReadCost && cost.buyCost !== undefined && cost.margin !== undefined ? (
              <>
                <div>
                  <dt className="text-xs text-slate-600">Buy cost</dt>
                  <dd className="font-semibold tabular-nums">{formatAmount(toMicros(cost.buyCost), t.currency)}</dd>
                </div>
                <div>
                  <dt className="text-xs text-slate-600">Margin</dt>
                  <dd className="font-semibold tabular-nums" data-testid="report-total-margin">
                    <Amount micros={toMicros(cost.margin)} currency={t.currency} signed />
                  </dd>
                </div>
              </>
            ) : null}
            <div>
              <dt className="text-xs text-slate-600">Unrated calls</dt>
              <dd className="font-semibold tabular-nums">{formatCount(t.unratedCalls)}</dd>
            </div>
          </dl>
        );
      })}
    </section>
  );
}

/**
 * Spend per group as horizontal bars, each labelled with its amount: days and months in time order
 * (the latest 31), other groups largest first (top 15).
 */
function ReportChart({ rows, groupLabel, timeKeys }: { rows: Row[]; groupLabel: string; timeKeys: boolean }) {
  const top = timeKeys ? rows.slice(-31) : [...rows].sort((a, b) => byMicros(b.price, a.price)).slice(0, 15);
  const max = new Map<string, bigint>();
  for (const r of top) {
    const m = toMicros(r.price);
    if (m > (max.get(r.currency) ?? 0n)) max.set(r.currency, m);
  }
  return (
    <figure className={cardClass} data-testid="report-chart">
      <figcaption className="mb-3 text-sm font-medium text-slate-600">
        Spend by {groupLabel.toLowerCase()} {timeKeys ? `(latest ${top.length})` : `(largest ${top.length})`}
      </figcaption>
      <ol className="space-y-1.5">
        {top.map((r) => {
          const m = toMicros(r.price);
          const top = max.get(r.currency) ?? 0n;
          const share = top === 0n ? 0 : Number((m * 1000n) / top) / 10;
          return (
            <li
              key={`${r.key}|${r.currency}`}
              className="grid grid-cols-[minmax(6rem,14rem)_1fr_auto] items-center gap-3 text-sm"
            >
              <span className="truncate text-slate-800" title={keyText(r)}>
                {keyText(r)}
              </span>
              <span className="h-3 rounded-sm bg-slate-100" aria-hidden>
                <span
                  className="block h-3 rounded-sm bg-brand-600"
                  style={{ width: `${Math.max(share, m > 0n ? 0.5 : 0)}%` }}
                />
              </span>
              <span className="tabular-nums text-slate-800">{formatAmount(m, r.currency)}</span>
            </li>
          );
        })}
      </ol>
    </figure>
  );
}

const column = createColumnHelper<Row>();

function ReportTable({
  rows,
  groupLabel,
  canReadCost,
  timeKeys,
  zoneName,
}: {
  rows: Row[];
  groupLabel: string;
  canReadCost: boolean;
  timeKeys: boolean;
  zoneName: string;
}) {
  const [sorting, setSorting] = useState<SortingState>(timeKeys ? [] : [{ id: "price", desc: true }]);
  const columns = useMemo(
    () => [
      column.accessor((r) => keyText(r), {
        id: "key",
        header: timeKeys ? `${groupLabel} (${zoneName})` : groupLabel,
        cell: (c) => <span className={c.row.original.key === null ? "text-slate-600" : ""}>{c.getValue()}</span>,
      }),
      column.accessor("calls", { header: "Calls", cell: (c) => formatCount(c.getValue()), meta: { numeric: true } }),
      column.accessor("billedSeconds", {
        header: "Billed minutes",
        cell: (c) => formatMinutes(c.getValue()),
        meta: { numeric: true },
      }),
      column.accessor("price", {
        header: "Spend",
        sortingFn: (a, b) => byMicros(a.original.price, b.original.price),
        cell: (c) => formatAmount(toMicros(c.getValue()), c.row.original.currency),
        meta: { numeric: true },
      }),
      // Cost columns exist only for cost sessions (the API sends their values to no one else).
      ...(canReadCost
        ? [
            column.accessor((r) => r.buyCost, {
              id: "buyCost",
              header: "Buy cost",
              sortingFn: (a, b) => byMicros(a.original.buyCost, b.original.buyCost),
              cell: (c) =>
                c.getValue() === undefined ? "—" : formatAmount(toMicros(c.getValue()!), c.row.original.currency),
              meta: { numeric: true },
            }),
            column.accessor((r) => r.margin, {
              id: "margin",
              header: "Margin",
              sortingFn: (a, b) => byMicros(a.original.margin, b.original.margin),
              cell: (c) =>
                c.getValue() === undefined ? (
                  "—"
                ) : (
                  <Amount micros={toMicros(c.getValue()!)} currency={c.row.original.currency} signed />
                ),
              meta: { numeric: true },
            }),
          ]
        : []),
    ],
    [canReadCost, groupLabel, timeKeys, zoneName],
  );
  // eslint-disable-next-line react-hooks/incompatible-library
  const table = useReactTable({
    data: rows,
    columns,
    state: { sorting },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
  });
  return (
    <div
      className="overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-sm"
      role="region"
      aria-label="Report table"
      tabIndex={0}
    >
      <table className="w-full min-w-[36rem] text-sm" data-testid="report-table">
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
          {table.getRowModel().rows.map((r) => {
            const loss =
              r.original.margin !== undefined && r.original.margin !== null && toMicros(r.original.margin) < 0n;
            return (
              <tr
                key={r.id}
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
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
