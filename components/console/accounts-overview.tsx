"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { flexRender, getCoreRowModel, useReactTable, type ColumnDef } from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import Link from "next/link";
import { useDeferredValue, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { Card } from "@/components/ui/card";
import { LoadError } from "@/components/ui/load-error";
import type { OverviewSort } from "@/lib/billing/accounts-overview";
import { loadAccountsOverview, type OverviewRowView } from "@/lib/portal/accounts-overview-actions";
import { accountStatusText } from "@/lib/portal/balance-status";
import { formatAmount, formatCount } from "@/lib/portal/format";
import { usePhoneLayout } from "../use-phone-layout";

const PAGE_SIZE = 200;
const ROW_HEIGHT = 40;
/** A phone's card per account: three lines. */
const CARD_HEIGHT = 84;

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
      // Not prefetched: every visible row's account page would be rendered on the server (twice, once per router
      // state) while staff look for the one they open, slowing it and everyone else's pages under load (issue 30 item 11).
      return (
        <Link
          href={`/console/accounts/${encodeURIComponent(row.id)}`}
          prefetch={false}
          className="font-medium text-brand-700 underline"
        >
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
    // Each account's own day and month: its zone on hover (the caption says so).
    case "todaySpend":
      return <span title={`Today in ${row.timeZone}`}>{money(row.todaySpendMicros, row.currency)}</span>;
    case "monthSpend":
      return (
        <span title={`This month in ${row.timeZone}`} data-testid="month-spend">
          {money(row.monthSpendMicros, row.currency)}
        </span>
      );
  }
}

/**
 * Every account, a page of the server's sorted and searched list at a time (a server action over
 * lib/billing/accounts-overview.ts), in a virtualised table: only the rows on screen are rendered, so 10k accounts
 * scroll like 10. Sorting and searching restart the list. On a phone a card per account (balance and status in
 * view, not past the table's right edge), virtualised the same way, sorted from a select.
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
  const phone = usePhoneLayout();
  // TanStack Virtual keeps mutable state outside React; it is used as documented.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => (phone ? CARD_HEIGHT : ROW_HEIGHT),
    overscan: 10,
  });
  // Rows and cards differ in height: the sizes known so far are the other layout's.
  useEffect(() => virtualizer.measure(), [phone, virtualizer]);
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
            className="w-72 max-w-full rounded-md border border-slate-300 px-3 py-1.5 text-sm"
            data-testid="accounts-search"
          />
        </label>
        {phone ? <SortChoice sort={sort} onSort={setSort} /> : null}
        <p className="text-sm text-slate-600" aria-live="polite" data-testid="accounts-total">
          {pages.isPending ? "Loading…" : `${formatCount(total)} accounts`} · spend today and this month in each
          account&apos;s own time zone (on hover)
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
          {phone ? (
            <AccountCards
              rows={rows}
              virtualRows={virtualRows}
              paddingTop={paddingTop}
              paddingBottom={paddingBottom}
              state={
                pages.isError && !pages.data ? (
                  <LoadError
                    title="The accounts could not be loaded."
                    detail={(pages.error as Error).message}
                    onRetry={() => void pages.refetch()}
                  />
                ) : !pages.isPending && rows.length === 0 ? (
                  <p className="px-4 py-6 text-center text-sm text-slate-500">No account matches.</p>
                ) : null
              }
              loading={pages.isPending || isFetchingNextPage}
            />
          ) : (
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
          )}
        </div>
      </Card>
    </div>
  );
}

/** The phone's sort: the table's column headers are not on screen. */
function SortChoice({
  sort,
  onSort,
}: {
  sort: { id: OverviewSort; descending: boolean };
  onSort: (sort: { id: OverviewSort; descending: boolean }) => void;
}) {
  return (
    <label className="flex flex-col gap-1 text-sm">
      <span className="font-medium text-slate-700">Sort by</span>
      <select
        value={`${sort.id}:${sort.descending ? "desc" : "asc"}`}
        onChange={(e) => {
          const [id, direction] = e.target.value.split(":");
          onSort({ id: id as OverviewSort, descending: direction === "desc" });
        }}
        className="min-h-9 rounded-md border border-slate-300 bg-white px-2 text-sm"
        data-testid="accounts-sort"
      >
        {COLUMNS.flatMap((c) => [
          <option key={`${c.id}:asc`} value={`${c.id}:asc`}>
            {c.label}, {c.numeric ? "lowest" : "A to Z"} first
          </option>,
          <option key={`${c.id}:desc`} value={`${c.id}:desc`}>
            {c.label}, {c.numeric ? "highest" : "Z to A"} first
          </option>,
        ])}
      </select>
    </label>
  );
}

/** A phone's card per account, the rows on screen only (the same window as the table's). */
function AccountCards({
  rows,
  virtualRows,
  paddingTop,
  paddingBottom,
  state,
  loading,
}: {
  rows: OverviewRowView[];
  virtualRows: { index: number }[];
  paddingTop: number;
  paddingBottom: number;
  /** An error or "no account matches", instead of the cards. */
  state: ReactNode;
  loading: boolean;
}) {
  if (state) return state;
  return (
    <>
      <ul aria-label="Accounts" style={{ paddingTop, paddingBottom }}>
        {virtualRows.map((v) => {
          const row = rows[v.index];
          if (!row) return null;
          return (
            <li
              key={row.id}
              data-account-id={row.id}
              className="flex flex-col justify-center gap-1 border-b border-slate-100 px-4 text-[13px]"
              style={{ height: CARD_HEIGHT }}
              data-testid="account-card"
            >
              <div className="flex items-center justify-between gap-3">
                <span className="min-w-0 truncate">{cellOf("name", row)}</span>
                <span className="num shrink-0 font-semibold text-slate-900" data-column="balance">
                  {cellOf("balance", row)}
                </span>
              </div>
              <div className="flex items-center justify-between gap-3 text-xs text-slate-600">
                <span className="min-w-0 truncate">{cellOf("id", row)}</span>
                <span className="shrink-0">
                  <span data-column="currency">{row.currency}</span> ·{" "}
                  <span data-column="status">{cellOf("status", row)}</span>
                </span>
              </div>
              <div className="flex flex-wrap justify-between gap-x-3 text-xs text-slate-600">
                <span>
                  Credit limit <span className="tabular-nums">{cellOf("creditLimit", row)}</span>
                </span>
                <span>
                  Today <span className="tabular-nums">{cellOf("todaySpend", row)}</span> · Month{" "}
                  <span className="tabular-nums">{cellOf("monthSpend", row)}</span>
                </span>
              </div>
            </li>
          );
        })}
      </ul>
      {loading ? <p className="py-3 text-center text-xs text-slate-500">Loading accounts…</p> : null}
    </>
  );
}
