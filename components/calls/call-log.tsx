"use client";

import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { flexRender, getCoreRowModel, useReactTable } from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import type { CallPage } from "@/lib/calls/schemas";
import type { CallColumnId } from "@/lib/portal/call-columns";
import { callFiltersToApiQuery, hasAnyFilter, parseCallFilters } from "@/lib/portal/call-filters";
import { formatCount } from "@/lib/portal/format";
import { ApiProblem, apiGet } from "../api/api-client";
import { useIsClient } from "../use-is-client";
import { COLUMN_DEFS, COLUMN_LAYOUT, type CallRow } from "./call-columns";
import { CallDetailDialog } from "./call-detail-dialog";
import { CallFiltersBar, navigateFilters } from "./call-filters-bar";

const PAGE_SIZE = 500;
const ROW_HEIGHT = 44;
/** Start loading the next page when the viewport is this many rows from the end. */
const PREFETCH_ROWS = 60;

export function CallLog({ columns }: { columns: CallColumnId[] }) {
  const searchParams = useSearchParams();
  const filters = useMemo(() => parseCallFilters(searchParams), [searchParams]);
  const apiQuery = useMemo(() => callFiltersToApiQuery(filters), [filters]);
  const apiQueryText = apiQuery.toString();
  const queryClient = useQueryClient();

  const calls = useInfiniteQuery({
    queryKey: ["calls", apiQueryText],
    queryFn: ({ pageParam, signal }) => apiGet<CallPage>(pageParam, signal),
    initialPageParam: `/v1/calls?${apiQueryText ? `${apiQueryText}&` : ""}pageSize=${PAGE_SIZE}`,
    getNextPageParam: (last) => last.nextPageUrl ?? undefined,
    // Hundreds of loaded pages must not be refetched behind the user's back; "Refresh" restarts.
    staleTime: Infinity,
    // Deep-comparing every loaded page on each new page is O(rows); the pages never change anyway.
    structuralSharing: false,
  });

  const rows = useMemo(() => (calls.data?.pages.flatMap((p) => p.calls) ?? []) as CallRow[], [calls.data]);
  const columnDefs = useMemo(() => columns.map((id) => COLUMN_DEFS[id]), [columns]);

  const scrollRef = useRef<HTMLDivElement>(null);
  // TanStack Table and Virtual keep mutable state outside React; they are used as documented.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 15,
  });
  const virtualRows = virtualizer.getVirtualItems();
  const firstVisible = virtualRows.length ? virtualRows[0].index : 0;
  const lastVisible = virtualRows.length ? virtualRows[virtualRows.length - 1].index : -1;

  // The table models only the rows on screen: a Row object per loaded call would cost hundreds of
  // megabytes at 100k rows, and the order is the server's, so nothing needs the whole set.
  const windowRows = useMemo(() => rows.slice(firstVisible, lastVisible + 1), [rows, firstVisible, lastVisible]);
  const table = useReactTable({ data: windowRows, columns: columnDefs, getCoreRowModel: getCoreRowModel(), getRowId: (r) => r.id });
  const tableRows = table.getRowModel().rows;

  const { hasNextPage, isFetchingNextPage, fetchNextPage, isError } = calls;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && !isError && lastVisible >= rows.length - PREFETCH_ROWS) {
      void fetchNextPage();
    }
  }, [hasNextPage, isFetchingNextPage, isError, lastVisible, rows.length, fetchNextPage]);

  // New filters start at the top.
  useEffect(() => {
    scrollRef.current?.scrollTo({ top: 0 });
  }, [apiQueryText]);

  const [openCallId, setOpenCallId] = useState<string | null>(null);

  // Keyboard focus moving to a row that the virtualiser has yet to render: focus it once it is there.
  const pendingFocus = useRef<number | null>(null);
  const focusPendingRow = () => {
    if (pendingFocus.current === null) return;
    const tr = scrollRef.current?.querySelector<HTMLElement>(`tr[aria-rowindex="${pendingFocus.current + 2}"]`);
    if (tr) {
      tr.focus({ preventScroll: true });
      pendingFocus.current = null;
    }
  };
  useEffect(focusPendingRow);

  const paddingTop = virtualRows.length ? virtualRows[0].start : 0;
  const paddingBottom = virtualRows.length ? virtualizer.getTotalSize() - virtualRows[virtualRows.length - 1].end : 0;
  // Day filters become instants in the viewer's zone: the server render cannot know it, so the
  // filtered link is set once hydrated (the server's would stay, as React keeps attributes on hydration).
  const isClient = useIsClient();
  const exportHref = `/v1/calls/export${isClient && apiQueryText ? `?${apiQueryText}` : ""}`;
  const loaded = rows.length;
  const firstPageError = calls.isError && !calls.data;
  const nextPageError = calls.isFetchNextPageError;

  return (
    <div className="flex flex-col gap-4">
      <CallFiltersBar filters={filters} />
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-slate-600" role="status" aria-live="polite" data-testid="call-count">
          {calls.isPending
            ? "Loading calls…"
            : firstPageError
              ? "Calls could not be loaded."
              : `${formatCount(loaded)} ${loaded === 1 ? "call" : "calls"} loaded · ${
                  calls.hasNextPage ? "more available, scroll to load" : "all calls loaded"
                }`}
        </p>
        <div className="flex items-center gap-2">
          <button
            type="button"
            onClick={() => void queryClient.resetQueries({ queryKey: ["calls", apiQueryText] })}
            className="rounded-lg border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-700 shadow-xs hover:bg-slate-50"
          >
            Refresh
          </button>
          <a
            href={exportHref}
            download
            className="rounded-lg bg-brand-600 px-3 py-1.5 text-sm font-semibold text-white shadow-sm hover:bg-brand-700"
          >
            Export CSV
          </a>
        </div>
      </div>

      <div className="overflow-hidden rounded-xl border border-slate-200 bg-white shadow-sm">
        <div
          ref={scrollRef}
          className="relative h-[calc(100dvh-19rem)] min-h-80 overflow-auto"
          role="region"
          aria-label="Call log"
          tabIndex={0}
          data-testid="call-log-scroll"
        >
          <table
            className="w-full table-fixed border-separate border-spacing-0 text-[13px]"
            style={{ minWidth: `${columns.reduce((sum, c) => sum + COLUMN_LAYOUT[c].rem, 0)}rem` }}
            aria-rowcount={loaded + 1}
          >
            <colgroup>
              {columns.map((c) => (
                <col key={c} style={{ width: `${COLUMN_LAYOUT[c].rem}rem` }} />
              ))}
            </colgroup>
            <thead>
              {table.getHeaderGroups().map((group) => (
                <tr key={group.id}>
                  {group.headers.map((header) => {
                    const layout = COLUMN_LAYOUT[header.column.id as CallColumnId];
                    return (
                      <th
                        key={header.id}
                        scope="col"
                        className={`sticky top-0 z-10 h-10 border-b border-slate-200 bg-slate-50 px-2.5 text-xs font-semibold uppercase tracking-wide text-slate-500 ${layout.numeric ? "text-right" : "text-left"}`}
                      >
                        {flexRender(header.column.columnDef.header, header.getContext())}
                      </th>
                    );
                  })}
                </tr>
              ))}
            </thead>
            <tbody>
              {calls.isPending ? (
                <SkeletonRows columns={columns} />
              ) : firstPageError ? (
                <tr>
                  <td colSpan={columns.length} className="p-0">
                    <ErrorState error={calls.error} onRetry={() => void calls.refetch()} />
                  </td>
                </tr>
              ) : loaded === 0 ? (
                <tr>
                  <td colSpan={columns.length} className="p-0">
                    <EmptyState filtered={hasAnyFilter(filters)} />
                  </td>
                </tr>
              ) : (
                <>
                  {paddingTop > 0 ? (
                    <tr aria-hidden>
                      <td colSpan={columns.length} style={{ height: paddingTop }} />
                    </tr>
                  ) : null}
                  {virtualRows.map((v) => {
                    const row = tableRows[v.index - firstVisible];
                    return (
                      <tr
                        key={row.id}
                        data-call-id={row.id}
                        aria-rowindex={v.index + 2}
                        tabIndex={0}
                        onClick={() => setOpenCallId(row.id)}
                        onKeyDown={(e) => {
                          if (e.key === "Enter" || e.key === " ") {
                            e.preventDefault();
                            setOpenCallId(row.id);
                          } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
                            // Arrow keys walk the rows; the virtualiser brings the next one into the DOM first.
                            e.preventDefault();
                            const from = pendingFocus.current ?? v.index; // keys pressed faster than rows render
                            const target = Math.min(rows.length - 1, Math.max(0, from + (e.key === "ArrowDown" ? 1 : -1)));
                            virtualizer.scrollToIndex(target, { align: "auto" });
                            pendingFocus.current = target;
                            focusPendingRow();
                          }
                        }}
                        className="cursor-pointer hover:bg-brand-50/60 focus:bg-brand-50"
                        style={{ height: ROW_HEIGHT }}
                      >
                        {row.getVisibleCells().map((cell) => {
                          const layout = COLUMN_LAYOUT[cell.column.id as CallColumnId];
                          return (
                            <td
                              key={cell.id}
                              data-column={cell.column.id}
                              className={`truncate border-b border-slate-100 px-2.5 ${layout.numeric ? "num" : ""}`}
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
                      <td colSpan={columns.length} style={{ height: paddingBottom }} />
                    </tr>
                  ) : null}
                  {isFetchingNextPage ? <SkeletonRows columns={columns} count={3} /> : null}
                  {nextPageError ? (
                    <tr>
                      <td colSpan={columns.length} className="p-0">
                        <ErrorState error={calls.error} onRetry={() => void fetchNextPage()} compact />
                      </td>
                    </tr>
                  ) : null}
                  {!calls.hasNextPage ? (
                    <tr>
                      <td colSpan={columns.length} className="py-4 text-center text-xs text-slate-400" data-testid="end-of-log">
                        End of the call log
                      </td>
                    </tr>
                  ) : null}
                </>
              )}
            </tbody>
          </table>
        </div>
      </div>
      <CallDetailDialog callId={openCallId} onClose={() => setOpenCallId(null)} />
    </div>
  );
}

function SkeletonRows({ columns, count = 12 }: { columns: CallColumnId[]; count?: number }) {
  return (
    <>
      {Array.from({ length: count }, (_, i) => (
        <tr key={i} aria-hidden data-testid="skeleton-row" style={{ height: ROW_HEIGHT }}>
          {columns.map((c) => (
            <td key={c} className="border-b border-slate-100 px-2.5">
              <div className={`h-3 animate-pulse rounded bg-slate-200 ${COLUMN_LAYOUT[c].numeric ? "ml-auto w-12" : "w-3/4"}`} />
            </td>
          ))}
        </tr>
      ))}
    </>
  );
}

function EmptyState({ filtered }: { filtered: boolean }) {
  return (
    <div className="flex flex-col items-center gap-2 px-6 py-16 text-center" data-testid="empty-state">
      <p className="text-base font-medium text-slate-900">{filtered ? "No calls match these filters" : "No calls yet"}</p>
      <p className="max-w-sm text-sm text-slate-500">
        {filtered ? "Widen the date range or clear a filter to see more calls." : "Calls appear here as soon as they complete."}
      </p>
      {filtered ? (
        <button
          type="button"
          onClick={() => navigateFilters({}, "push")}
          className="mt-2 rounded-lg border border-slate-300 px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-50"
        >
          Clear filters
        </button>
      ) : null}
    </div>
  );
}

function ErrorState({ error, onRetry, compact = false }: { error: unknown; onRetry: () => void; compact?: boolean }) {
  const detail = error instanceof ApiProblem ? error.detail : "The network request failed.";
  return (
    <div role="alert" className={`flex flex-col items-center gap-2 text-center ${compact ? "px-4 py-4" : "px-6 py-16"}`}>
      <p className="font-medium text-red-800">Calls could not be loaded</p>
      <p className="max-w-md text-sm text-slate-600">{detail}</p>
      <button type="button" onClick={onRetry} className="mt-1 rounded-lg bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700">
        Retry
      </button>
    </div>
  );
}
