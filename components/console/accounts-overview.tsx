"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { flexRender, getCoreRowModel, useReactTable, type ColumnDef } from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import Link from "next/link";
import { useDeferredValue, useEffect, useMemo, useRef, useState } from "react";
import { Card } from "@/components/ui/card";
import { LoadError } from "@/components/ui/load-error";
import type { OverviewSort } from "@/lib/billing/accounts-overview";
import { loadAccountsOverview, type OverviewRowView } from "@/lib/portal/accounts-overview-actions";
import { accountStatusText } from "@/lib/portal/balance-status";
import { formatAmount, formatCount } from "@/lib/portal/format";

const PAGE_SIZE = 200;
const ROW_HEIGHT = 40;

const COLUMNS: { id: OverviewSort; label: string; numeric?: boolean; rem: number }[] = [
  { id: "name", label: "Name", rem: 16 },
  { id: "id", label: "Id", rem: 14 },
  { id: "currency", label: "Currency", rem: 6 },
  { id: "balance", label: "Balance", numeric: true, rem: 9 },
  { id: "creditLimit", label: "Credit limit", numeric: true, rem: 9 },
  { id: "status", label: "Status", rem: 11 },
  { id: "todaySpend", label: "Spend today", numeric: true, rem: 9 },
  { id: "monthSpend", label: "Spend this month", numeric: true, rem: 10 },
];

function money(micros: string, currency: string): string {
  return formatAmount(BigInt(micros), currency);
}

function cellOf(id: OverviewSort, row: OverviewRowView) {
  switch (id) {
    case "name":
      return (
        <Link href={`/console/accounts/${encodeURIComponent(row.id)}`} className="font-medium text-brand-700 underline">
          {row.name}
        </Link>
      );
    case "id":
      return <span className="font-mono text-xs">{row.id}</span>;
    case "currency":
      return row.currency;
    case "balance":
      return money(row.balanceMicros, row.currency);
    case "creditLimit":
      return money(row.creditLimitMicros, row.currency);
    case "status":
      // Says why: a new account with no opening balance and no credit limit starts at its limit.
      return <span className={row.disabled ? "text-red-700" : undefined}>{accountStatusText(row, "short")}</span>;
    case "todaySpend":
      return money(row.todaySpendMicros, row.currency);
    case "monthSpend":
      return money(row.monthSpendMicros, row.currency);
  }
}

/**
 * Every account, a page of the server's sorted and searched list at a time (a server action over
 * lib/billing/accounts-overview.ts), in a virtualised table: only the rows on screen are rendered, so 10k accounts
 * scroll like 10. Sorting and searching restart the list.
 */
export function AccountsOverview() {
  const [search, setSearch] = useState("");
  const [sort, setSort] = useState<{ id: OverviewSort; descending: boolean }>({ id: "name", descending: false });
  const deferredSearch = useDeferredValue(search.trim());
  const pages = useInfiniteQuery({
    queryKey: ["accounts-overview", deferredSearch, sort.id, sort.descending],
    queryFn: async ({ pageParam }) => {
      const page = await loadAccountsOverview({
        search: deferredSearch || undefined,
        sort: sort.id,
        descending: sort.descending,
        offset: pageParam,
        limit: PAGE_SIZE,
      });
      if (!page) throw new Error("The accounts could not be loaded (is the session still a staff one?).");
      return page;
    },
    initialPageParam: 0,
    getNextPageParam: (last, all) => {
      const loaded = all.reduce((n, p) => n + p.rows.length, 0);
      return loaded < last.total ? loaded : undefined;
    },
  });
  const rows = useMemo(() => pages.data?.pages.flatMap((p) => p.rows) ?? [], [pages.data]);
  const total = pages.data?.pages[0]?.total ?? 0;
  const scrollRef = useRef<HTMLDivElement>(null);
  // TanStack Virtual keeps mutable state outside React; it is used as documented.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });
  const virtualRows = virtualizer.getVirtualItems();
  const lastIndex = virtualRows.length ? virtualRows[virtualRows.length - 1].index : -1;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = pages;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && lastIndex >= rows.length - 20) void fetchNextPage();
  }, [lastIndex, rows.length, hasNextPage, isFetchingNextPage, fetchNextPage]);

  const columns = useMemo<ColumnDef<OverviewRowView>[]>(
    () =>
      COLUMNS.map((c) => ({
        id: c.id,
        header: c.label,
        cell: ({ row }) => cellOf(c.id, row.original),
      })),
    [],
  );
  const first = virtualRows.length ? virtualRows[0].index : 0;
  const windowRows = useMemo(() => rows.slice(first, lastIndex + 1), [rows, first, lastIndex]);
  const table = useReactTable({
    data: windowRows,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (r) => r.id,
    manualSorting: true,
  });
  const tableRows = table.getRowModel().rows;
  const paddingTop = virtualRows.length ? virtualRows[0].start : 0;
  const paddingBottom = virtualRows.length ? virtualizer.getTotalSize() - virtualRows[virtualRows.length - 1].end : 0;

  const toggle = (id: OverviewSort) =>
    setSort((s) => (s.id === id ? { id, descending: !s.descending } : { id, descending: false }));

  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium text-slate-700">Search accounts</span>
          <input
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            placeholder="Name, id or accountcode"
            className="w-72 rounded-md border border-slate-300 px-3 py-1.5 text-sm"
            data-testid="accounts-search"
          />
        </label>
        <p className="text-sm text-slate-600" aria-live="polite" data-testid="accounts-total">
          {pages.isPending ? "Loading…" : `${formatCount(total)} accounts`} · spend in UTC days and months
        </p>
      </div>
      <Card padding="none" as="div" className="overflow-hidden">
        <div
          ref={scrollRef}
          className="relative h-[calc(100dvh-18rem)] min-h-80 overflow-auto"
          role="region"
          aria-label="Accounts"
          tabIndex={0}
          data-testid="accounts-scroll"
        >
          <table
            className="w-full table-fixed border-separate border-spacing-0 text-[13px]"
            style={{ minWidth: `${COLUMNS.reduce((sum, c) => sum + c.rem, 0)}rem` }}
            aria-rowcount={total + 1}
            data-testid="accounts-table"
          >
            <colgroup>
              {COLUMNS.map((c) => (
                <col key={c.id} style={{ width: `${c.rem}rem` }} />
              ))}
            </colgroup>
            <thead>
              {table.getHeaderGroups().map((group) => (
                <tr key={group.id}>
                  {group.headers.map((header) => {
                    const column = COLUMNS.find((c) => c.id === header.column.id)!;
                    const active = sort.id === column.id;
                    return (
                      <th
                        key={header.id}
                        scope="col"
                        aria-sort={active ? (sort.descending ? "descending" : "ascending") : "none"}
                        className={`sticky top-0 z-10 h-10 border-b border-slate-200 bg-slate-50 px-2.5 text-xs font-semibold uppercase tracking-wide text-slate-600 ${column.numeric ? "text-right" : "text-left"}`}
                      >
                        <button
                          type="button"
                          onClick={() => toggle(column.id)}
                          className="uppercase hover:text-slate-900"
                          data-sort={column.id}
                        >
                          {flexRender(header.column.columnDef.header, header.getContext())}
                          <span aria-hidden className="ml-1">
                            {active ? (sort.descending ? "▼" : "▲") : ""}
                          </span>
                        </button>
                      </th>
                    );
                  })}
                </tr>
              ))}
            </thead>
            <tbody>
              {pages.isError && !pages.data ? (
                <tr>
                  <td colSpan={COLUMNS.length} className="p-0">
                    <LoadError
                      title="The accounts could not be loaded."
                      detail={(pages.error as Error).message}
                      onRetry={() => void pages.refetch()}
                    />
                  </td>
                </tr>
              ) : !pages.isPending && rows.length === 0 ? (
                <tr>
                  <td colSpan={COLUMNS.length} className="px-4 py-6 text-center text-slate-500">
                    No account matches.
                  </td>
                </tr>
              ) : (
                <>
                  {paddingTop > 0 ? (
                    <tr aria-hidden>
                      <td colSpan={COLUMNS.length} style={{ height: paddingTop }} />
                    </tr>
                  ) : null}
                  {virtualRows.map((v) => {
                    const row = tableRows[v.index - first];
                    if (!row) return null;
                    return (
                      <tr
                        key={row.id}
                        data-account-id={row.id}
                        aria-rowindex={v.index + 2}
                        className="hover:bg-brand-50/60"
                        style={{ height: ROW_HEIGHT }}
                      >
                        {row.getVisibleCells().map((cell) => {
                          const column = COLUMNS.find((c) => c.id === cell.column.id)!;
                          return (
                            <td
                              key={cell.id}
                              data-column={column.id}
                              className={`truncate border-b border-slate-100 px-2.5 ${column.numeric ? "num text-right" : ""}`}
                            >
                              {flexRender(cell.column.columnDef.cell, cell.getContext())}
                            </td>
                          );
                        })}
                      </tr>
                    );
                  })}
                  {paddingBottom > 0 ? (
                    <tr aria-hidden>
                      <td colSpan={COLUMNS.length} style={{ height: paddingBottom }} />
                    </tr>
                  ) : null}
                  {pages.isPending || isFetchingNextPage ? (
                    <tr>
                      <td colSpan={COLUMNS.length} className="py-3 text-center text-xs text-slate-500">
                        Loading accounts…
                      </td>
                    </tr>
                  ) : null}
                </>
              )}
            </tbody>
          </table>
        </div>
      </Card>
    </div>
  );
}
