"use client";

import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { flexRender, getCoreRowModel, useReactTable } from "@tanstack/react-table";
import { useVirtualizer, type Virtualizer } from "@tanstack/react-virtual";
import { useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef, useState, useSyncExternalStore, type RefObject } from "react";
import type { CallPage } from "@/lib/calls/schemas";
import type { CallColumnId } from "@/lib/portal/call-columns";
import { callFiltersToApiQuery, hasAnyFilter, parseCallFilters } from "@/lib/portal/call-filters";
import { formatCount, formatDateTime, formatDuration } from "@/lib/portal/format";
import { ApiProblem, apiGet } from "../api/api-client";
import { useTimeZone } from "../portal/time-zone";
import { useIsClient } from "../use-is-client";
import { COLUMN_LAYOUT, DirectionBadge, Money, Price, buildColumnDefs, type CallRow, type NameMap } from "./call-columns";
import { CallDetailDialog } from "./call-detail-dialog";
import { CallFiltersBar, navigateFilters, type AccountOption } from "./call-filters-bar";
import { CallTotals } from "./call-totals";

const PAGE_SIZE = 500;
const ROW_HEIGHT = 44;
const CARD_HEIGHT = 104;
/** Start loading the next page when the viewport is this many rows from the end. */
const PREFETCH_ROWS = 60;
/** Below Tailwind's `sm`: a card per call instead of a 9-column table. */
const PHONE_QUERY = "(max-width: 639px)";

function usePhoneLayout(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const mq = window.matchMedia(PHONE_QUERY);
      mq.addEventListener("change", onChange);
      return () => mq.removeEventListener("change", onChange);
    },
    () => window.matchMedia(PHONE_QUERY).matches,
    () => false,
  );
}

export interface CallLogProps {
  columns: CallColumnId[];
  /** Account names by id: platform sessions only. */
  accounts?: NameMap;
  /** The account filter's choices: platform sessions only. */
  accountOptions?: AccountOption[];
  /** Supplier names by id: cost sessions only. */
  suppliers?: NameMap;
  /** Whether totals include buy cost and margin (cost sessions only). */
  canReadCost?: boolean;
}

export function CallLog({ columns, accounts = {}, accountOptions, suppliers = {}, canReadCost = false }: CallLogProps) {
  const searchParams = useSearchParams();
  const filters = useMemo(() => parseCallFilters(searchParams), [searchParams]);
  const zone = useTimeZone();
  // Day filters become instants in the viewer's zone (or UTC): the server render cannot know it,
  // so nothing is fetched until hydrated (the query is client-only anyway).
  const isClient = useIsClient();
  const apiQuery = useMemo(() => callFiltersToApiQuery(filters, zone.mode), [filters, zone.mode]);
  const apiQueryText = apiQuery.toString();
  const queryClient = useQueryClient();
  const phone = usePhoneLayout();

  const calls = useInfiniteQuery({
    queryKey: ["calls", apiQueryText],
    queryFn: ({ pageParam, signal }) => apiGet<CallPage>(pageParam, signal),
    initialPageParam: `/v1/calls?${apiQueryText ? `${apiQueryText}&` : ""}pageSize=${PAGE_SIZE}`,
    getNextPageParam: (last) => last.nextPageUrl ?? undefined,
    // Hundreds of loaded pages must not be refetched behind the user's back; "Refresh" restarts.
    staleTime: Infinity,
    // Deep-comparing every loaded page on each new page is O(rows); the pages never change anyway.
    structuralSharing: false,
    enabled: isClient,
  });

  const rows = useMemo(() => (calls.data?.pages.flatMap((p) => p.calls) ?? []) as CallRow[], [calls.data]);
  const [openCallId, setOpenCallId] = useState<string | null>(null);

  const exportHref = `/v1/calls/export${isClient && apiQueryText ? `?${apiQueryText}` : ""}`;
  const loaded = rows.length;
  const pending = calls.isPending;
  const firstPageError = calls.isError && !calls.data;

  const body: BodyProps = {
    rows,
    columns,
    accounts,
    suppliers,
    zone,
    calls,
    filtered: hasAnyFilter(filters),
    resetKey: apiQueryText,
    onOpen: setOpenCallId,
  };

  return (
    <div className="flex flex-col gap-4">
      <CallFiltersBar filters={filters} accounts={accountOptions} />
      {isClient ? <CallTotals apiQuery={apiQueryText} canReadCost={canReadCost} /> : null}
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-slate-600" role="status" aria-live="polite" data-testid="call-count">
          {pending
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
      {phone ? <CallCards {...body} /> : <CallTable {...body} />}
      <CallDetailDialog callId={openCallId} onClose={() => setOpenCallId(null)} accounts={accounts} suppliers={suppliers} />
    </div>
  );
}

type InfiniteCalls = ReturnType<typeof useInfiniteQuery<CallPage, Error, { pages: CallPage[] }, string[], string>>;

interface BodyProps {
  rows: CallRow[];
  columns: CallColumnId[];
  accounts: NameMap;
  suppliers: NameMap;
  zone: ReturnType<typeof useTimeZone>;
  calls: InfiniteCalls;
  filtered: boolean;
  resetKey: string;
  onOpen: (id: string) => void;
}

/** The virtualiser over the loaded calls, loading the next page as the end comes into view. */
function useCallWindow(props: BodyProps, scrollRef: RefObject<HTMLDivElement | null>, size: number) {
  const { rows, calls, resetKey } = props;
  // TanStack Virtual keeps mutable state outside React; it is used as documented.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => size,
    overscan: 15,
  });
  const virtualRows = virtualizer.getVirtualItems();
  const lastVisible = virtualRows.length ? virtualRows[virtualRows.length - 1].index : -1;

  const { hasNextPage, isFetchingNextPage, fetchNextPage, isError } = calls;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && !isError && lastVisible >= rows.length - PREFETCH_ROWS) {
      void fetchNextPage();
    }
  }, [hasNextPage, isFetchingNextPage, isError, lastVisible, rows.length, fetchNextPage]);

  // New filters start at the top.
  useEffect(() => {
    scrollRef.current?.scrollTo({ top: 0 });
  }, [resetKey, scrollRef]);

  // Keyboard focus moving to a row that the virtualiser has yet to render: focus it once it is there.
  const pendingFocus = useRef<number | null>(null);
  const focusPending = () => {
    if (pendingFocus.current === null) return;
    const el = scrollRef.current?.querySelector<HTMLElement>(`[aria-rowindex="${pendingFocus.current + 2}"], [data-index="${pendingFocus.current}"]`);
    if (el) {
      el.focus({ preventScroll: true });
      pendingFocus.current = null;
    }
  };
  useEffect(focusPending);

  const onKey = (e: React.KeyboardEvent, index: number, id: string) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      props.onOpen(id);
    } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      // Arrow keys walk the rows; the virtualiser brings the next one into the DOM first.
      e.preventDefault();
      const from = pendingFocus.current ?? index; // keys pressed faster than rows render
      const target = Math.min(rows.length - 1, Math.max(0, from + (e.key === "ArrowDown" ? 1 : -1)));
      virtualizer.scrollToIndex(target, { align: "auto" });
      pendingFocus.current = target;
      focusPending();
    }
  };

  const paddingTop = virtualRows.length ? virtualRows[0].start : 0;
  const paddingBottom = virtualRows.length ? virtualizer.getTotalSize() - virtualRows[virtualRows.length - 1].end : 0;
  return { virtualizer: virtualizer as Virtualizer<HTMLDivElement, Element>, virtualRows, paddingTop, paddingBottom, onKey };
}

function CallTable(props: BodyProps) {
  const { rows, columns, calls, zone, accounts, suppliers } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const { virtualRows, paddingTop, paddingBottom, onKey } = useCallWindow(props, scrollRef, ROW_HEIGHT);
  const firstVisible = virtualRows.length ? virtualRows[0].index : 0;
  const lastVisible = virtualRows.length ? virtualRows[virtualRows.length - 1].index : -1;

  const defs = useMemo(
    () => buildColumnDefs({ timeZone: zone.timeZone, zoneLabel: zone.short, accounts, suppliers }),
    [zone.timeZone, zone.short, accounts, suppliers],
  );
  const columnDefs = useMemo(() => columns.map((id) => defs[id]), [columns, defs]);
  // The table models only the rows on screen: a Row object per loaded call would cost hundreds of
  // megabytes at 100k rows, and the order is the server's, so nothing needs the whole set.
  const windowRows = useMemo(() => rows.slice(firstVisible, lastVisible + 1), [rows, firstVisible, lastVisible]);
  // TanStack Table keeps mutable state outside React; it is used as documented.
  // eslint-disable-next-line react-hooks/incompatible-library
  const table = useReactTable({ data: windowRows, columns: columnDefs, getCoreRowModel: getCoreRowModel(), getRowId: (r) => r.id });
  const tableRows = table.getRowModel().rows;
  const loaded = rows.length;

  return (
    <div className="overflow-hidden rounded-xl border border-slate-200 bg-white shadow-sm">
      <div
        ref={scrollRef}
        className="relative h-[calc(100dvh-21rem)] min-h-80 overflow-auto"
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
                      data-column={header.column.id}
                      className={`sticky top-0 z-10 h-10 truncate border-b border-slate-200 bg-slate-50 px-2.5 text-xs font-semibold uppercase tracking-wide text-slate-600 ${layout.numeric ? "text-right" : "text-left"}`}
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
            ) : calls.isError && !calls.data ? (
              <tr>
                <td colSpan={columns.length} className="p-0">
                  <ErrorState error={calls.error} onRetry={() => void calls.refetch()} />
                </td>
              </tr>
            ) : loaded === 0 ? (
              <tr>
                <td colSpan={columns.length} className="p-0">
                  <EmptyState filtered={props.filtered} />
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
                      onClick={() => props.onOpen(row.id)}
                      onKeyDown={(e) => onKey(e, v.index, row.id)}
                      className="cursor-pointer hover:bg-brand-50/60 focus:bg-brand-50"
                      style={{ height: ROW_HEIGHT }}
                    >
                      {row.getVisibleCells().map((cell) => {
                        const layout = COLUMN_LAYOUT[cell.column.id as CallColumnId];
                        return (
                          <td key={cell.id} data-column={cell.column.id} className={`truncate border-b border-slate-100 px-2.5 ${layout.numeric ? "num" : ""}`}>
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
                {calls.isFetchingNextPage ? <SkeletonRows columns={columns} count={3} /> : null}
                {calls.isFetchNextPageError ? (
                  <tr>
                    <td colSpan={columns.length} className="p-0">
                      <ErrorState error={calls.error} onRetry={() => void calls.fetchNextPage()} compact />
                    </td>
                  </tr>
                ) : null}
                {!calls.hasNextPage ? (
                  <tr>
                    <td colSpan={columns.length} className="py-4 text-center text-xs text-slate-500" data-testid="end-of-log">
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
  );
}

/** Phone width: one card per call, virtualised like the table, the same keyboard walk. */
function CallCards(props: BodyProps) {
  const { rows, calls, zone, accounts, suppliers, columns } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const { virtualRows, paddingTop, paddingBottom, onKey } = useCallWindow(props, scrollRef, CARD_HEIGHT);
  const showAccount = columns.includes("account");
  const showCost = columns.includes("margin");
  return (
    <div className="overflow-hidden rounded-xl border border-slate-200 bg-white shadow-sm">
      <div
        ref={scrollRef}
        className="relative h-[calc(100dvh-16rem)] min-h-96 overflow-auto"
        role="region"
        aria-label={`Call log, times in ${zone.name}`}
        tabIndex={0}
        data-testid="call-log-scroll"
      >
        {calls.isPending ? (
          <p className="p-6 text-center text-sm text-slate-500">Loading calls…</p>
        ) : calls.isError && !calls.data ? (
          <ErrorState error={calls.error} onRetry={() => void calls.refetch()} />
        ) : rows.length === 0 ? (
          <EmptyState filtered={props.filtered} />
        ) : (
          <ul aria-label="Calls" style={{ paddingTop, paddingBottom }}>
            {virtualRows.map((v) => {
              const c = rows[v.index];
              return (
                <li
                  key={c.id}
                  data-call-id={c.id}
                  data-index={v.index}
                  tabIndex={0}
                  onClick={() => props.onOpen(c.id)}
                  onKeyDown={(e) => onKey(e, v.index, c.id)}
                  className="flex cursor-pointer flex-col justify-center gap-1 border-b border-slate-100 px-4 text-[13px] hover:bg-brand-50/60 focus:bg-brand-50"
                  style={{ height: CARD_HEIGHT }}
                  data-testid="call-card"
                >
                  <div className="flex items-center justify-between gap-2">
                    <span className="font-mono text-sm font-medium text-slate-900">{c.to}</span>
                    <span className="num font-medium">
                      <Price call={c} />
                    </span>
                  </div>
                  <div className="flex items-center justify-between gap-2 text-xs text-slate-600">
                    <time dateTime={c.startTime}>
                      {formatDateTime(c.startTime, { timeZone: zone.timeZone })} {zone.short}
                    </time>
                    <span className="tabular-nums">{formatDuration(c.duration)}</span>
                  </div>
                  <div className="flex items-center justify-between gap-2 text-xs text-slate-600">
                    <span className="flex min-w-0 items-center gap-2">
                      <DirectionBadge direction={c.direction} />
                      <span className="truncate">{showAccount ? (accounts[c.billingGroupId] ?? c.billingGroupId) : `from ${c.from}`}</span>
                    </span>
                    {showCost ? (
                      <span className="shrink-0 truncate">
                        {c.supplierId ? (suppliers[c.supplierId] ?? c.supplierId) : "—"} · <Money value={c.margin} currency={c.currency} signed />
                      </span>
                    ) : (
                      <span className="truncate">{c.hangupCause ?? ""}</span>
                    )}
                  </div>
                </li>
              );
            })}
          </ul>
        )}
        {calls.isFetchNextPageError ? <ErrorState error={calls.error} onRetry={() => void calls.fetchNextPage()} compact /> : null}
        {calls.data && rows.length > 0 && !calls.hasNextPage ? (
          <p className="py-4 text-center text-xs text-slate-500" data-testid="end-of-log">
            End of the call log
          </p>
        ) : null}
      </div>
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
      <p className="max-w-sm text-sm text-slate-600">
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
