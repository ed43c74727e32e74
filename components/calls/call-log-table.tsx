import { flexRender, getCoreRowModel, useReactTable } from "@tanstack/react-table";
import { useMemo, useRef } from "react";
import type { CallColumnId } from "@/lib/portal/call-columns";
import { COLUMN_LAYOUT, amountColumnsOf, buildColumnDefs } from "./call-columns";
import { EmptyState, LoadErrorState, SkeletonRows } from "./call-log-states";
import { ROW_HEIGHT, useCallWindow, type BodyProps } from "./call-log-window";
import { Card } from "../ui/card";

export function CallLogTable(props: BodyProps) {
  const { rows, columns, calls, zone, accounts, suppliers, destinationName } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const { virtualRows, paddingTop, paddingBottom, onKey } = useCallWindow(props, scrollRef, ROW_HEIGHT);
  const firstVisible = virtualRows.length ? virtualRows[0].index : 0;
  const lastVisible = virtualRows.length ? virtualRows[virtualRows.length - 1].index : -1;

  // One precision per amount column, the currency's code beside each amount when the calls span currencies.
  const amounts = useMemo(() => amountColumnsOf(rows), [rows]);
  const defs = useMemo(
    () =>
      buildColumnDefs({
        timeZone: zone.timeZone,
        zoneLabel: zone.short,
        accounts,
        suppliers,
        destinationName,
        amounts,
      }),
    [zone.timeZone, zone.short, accounts, suppliers, destinationName, amounts],
  );
  const columnDefs = useMemo(() => columns.map((id) => defs[id]), [columns, defs]);
  // The table models only the rows on screen: a Row object per loaded call would cost hundreds of
  // megabytes at 100k rows, and the order is the server's, so nothing needs the whole set.
  const windowRows = useMemo(() => rows.slice(firstVisible, lastVisible + 1), [rows, firstVisible, lastVisible]);
  // TanStack Table keeps mutable state outside React; it is used as documented.
  // eslint-disable-next-line react-hooks/incompatible-library
  const table = useReactTable({
    data: windowRows,
    columns: columnDefs,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (r) => r.id,
  });
  const tableRows = table.getRowModel().rows;
  const loaded = rows.length;

  return (
    <Card padding="none" as="div" className="overflow-hidden">
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
                  <LoadErrorState error={calls.error} onRetry={() => void calls.refetch()} />
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
                {calls.isFetchingNextPage ? <SkeletonRows columns={columns} count={3} /> : null}
                {calls.isFetchNextPageError ? (
                  <tr>
                    <td colSpan={columns.length} className="p-0">
                      <LoadErrorState error={calls.error} onRetry={() => void calls.fetchNextPage()} compact />
                    </td>
                  </tr>
                ) : null}
                {!calls.hasNextPage ? (
                  <tr>
                    <td
                      colSpan={columns.length}
                      className="py-4 text-center text-xs text-slate-500"
                      data-testid="end-of-log"
                    >
                      End of the call log
                    </td>
                  </tr>
                ) : null}
              </>
            )}
          </tbody>
        </table>
      </div>
    </Card>
  );
}
