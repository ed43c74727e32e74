"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useMemo, useState, useSyncExternalStore } from "react";
import type { CallColumnId } from "@/lib/portal/call-columns";
import { callFiltersToApiQuery, hasAnyFilter, parseCallFilters } from "@/lib/portal/call-filters";
import { formatCount } from "@/lib/portal/format";
import { useTimeZone } from "../portal/time-zone";
import { primaryButtonClass } from "../ui/button";
import { useIsClient } from "../use-is-client";
import type { CallRow, NameMap } from "./call-columns";
import { CallDetailDialog } from "./call-detail-dialog";
import { CallFiltersBar, type AccountOption } from "./call-filters-bar";
import { CallLogCards } from "./call-log-cards";
import type { BodyProps } from "./call-log-window";
import { CallLogTable } from "./call-log-table";
import { CallTotals } from "./call-totals";
import { useCallPages } from "./use-call-pages";

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

  const calls = useCallPages(apiQueryText, isClient);

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
          <a href={exportHref} download className={primaryButtonClass({ compact: true })}>
            Export CSV
          </a>
        </div>
      </div>
      {phone ? <CallLogCards {...body} /> : <CallLogTable {...body} />}
      <CallDetailDialog
        callId={openCallId}
        onClose={() => setOpenCallId(null)}
        accounts={accounts}
        suppliers={suppliers}
      />
    </div>
  );
}
