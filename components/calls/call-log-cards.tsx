import { useMemo, useRef } from "react";
import { formatDateTime, formatDuration, formatPhoneNumber } from "@/lib/portal/format";
import { Card } from "../ui/card";
import { DirectionBadge, Money, Price, StatusBadge, amountColumnsOf, listedCallStatus } from "./call-columns";
import { EmptyState, LoadErrorState } from "./call-log-states";
import { CARD_HEIGHT, useCallWindow, type BodyProps } from "./call-log-window";

/** Phone width: one card per call, virtualised like the table, the same keyboard walk. */
export function CallLogCards(props: BodyProps) {
  const { rows, calls, zone, accounts, suppliers, columns, destinationName } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const { virtualRows, paddingTop, paddingBottom, onKey } = useCallWindow(props, scrollRef, CARD_HEIGHT);
  const showAccount = columns.includes("account");
  const showCost = columns.includes("margin");
  const amounts = useMemo(() => amountColumnsOf(rows), [rows]);
  return (
    <Card as="div" padding="none" className="overflow-hidden">
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
          <LoadErrorState error={calls.error} onRetry={() => void calls.refetch()} />
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
                    <span className="min-w-0 truncate">
                      <span className="font-mono text-sm font-medium text-slate-900">{formatPhoneNumber(c.to)}</span>
                      {destinationName(c) ? (
                        <span className="ml-1.5 text-xs text-slate-600">{destinationName(c)}</span>
                      ) : null}
                    </span>
                    <span className="num shrink-0 font-medium">
                      <Price call={c} column={amounts.price} />
                    </span>
                  </div>
                  <div className="flex items-center justify-between gap-2 text-xs text-slate-600">
                    <time dateTime={c.startTime}>
                      {formatDateTime(c.startTime, { timeZone: zone.timeZone })} {zone.short}
                    </time>
                    <span className="flex items-center gap-2">
                      <StatusBadge status={listedCallStatus(c)} />
                      <span className="tabular-nums">{formatDuration(c.duration)}</span>
                    </span>
                  </div>
                  <div className="flex items-center justify-between gap-2 text-xs text-slate-600">
                    <span className="flex min-w-0 items-center gap-2">
                      <DirectionBadge direction={c.direction} />
                      <span className="truncate">
                        {showAccount
                          ? (accounts[c.billingGroupId] ?? c.billingGroupId)
                          : `from ${formatPhoneNumber(c.from)}`}
                      </span>
                    </span>
                    {showCost ? (
                      <span className="shrink-0 truncate">
                        {c.supplierId ? (suppliers[c.supplierId] ?? c.supplierId) : "—"} ·{" "}
                        <Money value={c.margin} currency={c.currency} signed column={amounts.margin} />
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
        {calls.isFetchNextPageError ? (
          <LoadErrorState error={calls.error} onRetry={() => void calls.fetchNextPage()} compact />
        ) : null}
        {calls.data && rows.length > 0 && !calls.hasNextPage ? (
          <p className="py-4 text-center text-xs text-slate-500" data-testid="end-of-log">
            End of the call log
          </p>
        ) : null}
      </div>
    </Card>
  );
}
