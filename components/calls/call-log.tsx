"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useMemo, useState } from "react";
import type { CallColumnId } from "@/lib/portal/call-columns";
import {
  callFiltersToApiQuery,
  hasAnyFilter,
  parseCallFilters,
  rangeProblem,
  toDayString,
} from "@/lib/portal/call-filters";
import { formatCount } from "@/lib/portal/format";
import { describePeriod } from "@/lib/portal/period";
import { callPagesKey } from "@/lib/portal/query-keys";
import { useTimeZone } from "../portal/time-zone";
import { primaryButtonClass, secondaryButtonClass } from "../ui/button";
import { Card } from "../ui/card";
import { useIsClient } from "../use-is-client";
import { usePhoneLayout } from "../use-phone-layout";
import type { CallRow, NameMap } from "./call-columns";
import { BackgroundExport } from "./background-export";
import { CallDetailDialog } from "./call-detail-dialog";
import { CallFiltersBar, type NamedOption } from "./call-filters-bar";
import { CallLogCards } from "./call-log-cards";
import type { BodyProps } from "./call-log-window";
import { CallLogTable } from "./call-log-table";
import { CallTotals } from "./call-totals";
import { ColumnChooser } from "./column-chooser";
import { useCallPages } from "./use-call-pages";
import { useColumnChoice } from "./use-column-choice";
import { useDestinationNames } from "./use-destination-names";

export interface CallLogProps {
  /** Every column this session may have (the server decides: cost and account columns only where allowed). */
  columns: CallColumnId[];
  /** Whose column choice to keep (the session's key id): choices are per person. */
  owner: string;
  /** Account names by id: platform sessions only. */
  accounts?: NameMap;
  /** The account filter's choices: platform sessions only. */
  accountOptions?: NamedOption[];
  /** Supplier names by id: cost sessions only (also the supplier filter's choices). */
  suppliers?: NameMap;
  /** Whether totals include buy cost and margin (cost sessions only). */
  canReadCost?: boolean;
}

export function CallLog({
  columns: available,
  owner,
  accounts = {},
  accountOptions,
  suppliers = {},
  canReadCost = false,
}: CallLogProps) {
  const searchParams = useSearchParams();
  const filters = useMemo(() => parseCallFilters(searchParams), [searchParams]);
  const zone = useTimeZone();
  // Day filters become instants in the viewer's zone (or UTC): the server render cannot know it,
  // so nothing is fetched until hydrated (the query is client-only anyway).
  const isClient = useIsClient();
  const problem = rangeProblem(filters);
  const apiQuery = useMemo(() => callFiltersToApiQuery(filters, zone.mode), [filters, zone.mode]);
  const apiQueryText = apiQuery.toString();
  const queryClient = useQueryClient();
  const phone = usePhoneLayout();
  const { shown: columns, choose } = useColumnChoice(available, owner);

  // A range the API would refuse is not asked for: the form says what to change.
  const calls = useCallPages(apiQueryText, isClient && problem === null);
  const destinationName = useDestinationNames(
    useMemo(() => calls.data?.pages.map((p) => p.calls) ?? [], [calls.data]),
    apiQueryText,
  );

  const rows = useMemo(() => (calls.data?.pages.flatMap((p) => p.calls) ?? []) as CallRow[], [calls.data]);
  const [openCallId, setOpenCallId] = useState<string | null>(null);

  const exportHref = `/v1/calls/export${isClient && apiQueryText ? `?${apiQueryText}` : ""}`;
  const loaded = rows.length;
  const pending = calls.isPending;
  const firstPageError = calls.isError && !calls.data;
  const supplierOptions = canReadCost ? Object.entries(suppliers).map(([id, name]) => ({ id, name })) : undefined;

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
    destinationName,
  };

  return (
    <div className="flex flex-col gap-4">
      <CallFiltersBar filters={filters} accounts={accountOptions} suppliers={supplierOptions} />
      {isClient && problem === null ? (
        <CallTotals
          apiQuery={apiQueryText}
          canReadCost={canReadCost}
          period={describePeriod(filters, zone.name, toDayString(new Date(), zone.mode))}
        />
      ) : null}
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-slate-600" role="status" aria-live="polite" data-testid="call-count">
          {problem
            ? "No calls shown until the dates are corrected."
            : pending
              ? "Loading calls…"
              : firstPageError
                ? "Calls could not be loaded."
                : `${formatCount(loaded)} ${loaded === 1 ? "call" : "calls"} loaded · ${
                    calls.hasNextPage ? "more available, scroll to load" : "all calls loaded"
                  }`}
        </p>
        <div className="flex items-center gap-2">
          {phone ? null : <ColumnChooser available={available} shown={columns} onChoose={choose} />}
          <button
            type="button"
            onClick={() => void queryClient.resetQueries({ queryKey: callPagesKey(apiQueryText) })}
            className={secondaryButtonClass}
          >
            Refresh
          </button>
          <BackgroundExport apiQueryText={apiQueryText} disabled={problem !== null || !isClient} />
          {problem ? (
            <button type="button" disabled className={primaryButtonClass({ compact: true })}>
              Export CSV
            </button>
          ) : (
            <a href={exportHref} download className={primaryButtonClass({ compact: true })}>
              Export CSV
            </a>
          )}
        </div>
      </div>
      {problem ? (
        <Card className="text-center text-sm text-slate-600" data-testid="range-blocked">
          {problem}
        </Card>
      ) : phone ? (
        <CallLogCards {...body} />
      ) : (
        <CallLogTable {...body} />
      )}
      {!problem && !phone && (columns.includes("duration") || columns.includes("billDuration")) ? (
        // 1:41 beside 1:30 is not a discount: the two count different things.
        <p className="text-xs text-slate-600" data-testid="duration-legend">
          Duration runs from dialling to hang-up, ringing included. Billed is the talk time charged: from the answer,
          rounded up to the rate&apos;s increment, so it can be shorter than the Duration.
        </p>
      ) : null}
      <CallDetailDialog
        callId={openCallId}
        onClose={() => setOpenCallId(null)}
        accounts={accounts}
        suppliers={suppliers}
      />
    </div>
  );
}
