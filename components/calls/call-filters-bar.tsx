"use client";

import { useId, useState } from "react";
import { useIsClient } from "../use-is-client";
import { useTimeZone } from "../portal/time-zone";
import {
  QUICK_RANGES,
  callFiltersToSearch,
  hasAnyFilter,
  quickRange,
  rangeProblem,
  type CallFilters,
} from "@/lib/portal/call-filters";
import { Card } from "@/components/ui/card";
import { AccountField, DateRangeFields, DirectionField, SupplierField } from "../portal/filter-fields";
import { DestinationField, HangupCauseField, QuickRangeField, SearchField } from "./call-filter-fields";

/** An account (platform sessions) or a supplier (cost sessions) a session may filter by. */
export interface NamedOption {
  id: string;
  name: string;
}

/**
 * Filters live in the URL. Native history calls are synced by Next's router into useSearchParams,
 * so a change does not round-trip to the server; reload and shared links restore the view.
 */
export function navigateFilters(filters: CallFilters, mode: "push" | "replace"): void {
  const search = callFiltersToSearch(filters, new URLSearchParams(window.location.search));
  const url = `${window.location.pathname}${search}`;
  if (mode === "push") window.history.pushState(null, "", url);
  else window.history.replaceState(null, "", url);
}

/** The quick range the URL's dates are, if any. "Today" depends on the viewer's clock and zone: browser only. */
function useActiveQuickRange(filters: CallFilters): string | undefined {
  const isClient = useIsClient();
  const zone = useTimeZone();
  if (!isClient) return undefined;
  return QUICK_RANGES.find((r) => {
    const range = quickRange(r.days, new Date(), zone.mode);
    return filters.from === range.from && filters.until === range.until;
  })?.id;
}

export function CallFiltersBar({
  filters,
  accounts,
  suppliers,
}: {
  filters: CallFilters;
  accounts?: NamedOption[];
  /** Cost sessions only. */
  suppliers?: NamedOption[];
}) {
  const id = useId();
  const zone = useTimeZone();
  const set = (patch: Partial<CallFilters>, mode: "push" | "replace" = "push") =>
    navigateFilters({ ...filters, ...patch }, mode);
  const activeRange = useActiveQuickRange(filters);
  const problem = rangeProblem(filters);

  const [showAll, setShowAll] = useState(false);
  const activeCount = [
    filters.from || filters.until,
    filters.direction,
    filters.destination,
    filters.hangupCause,
    filters.account,
    filters.supplier,
  ].filter(Boolean).length;
  // A range to correct is never folded away.
  const expanded = showAll || problem !== null;

  return (
    <Card
      as="form"
      padding="sm"
      role="search"
      aria-label="Filter calls"
      onSubmit={(e: React.FormEvent) => e.preventDefault()}
      className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6 lg:items-end"
    >
      <SearchField
        search={filters.search}
        searchBy={filters.searchBy}
        onApply={(search, searchBy) => set({ search, searchBy }, "replace")}
        className="col-span-2 sm:col-span-3 lg:col-span-2"
      />
      <div className="col-span-2 flex items-center justify-between sm:hidden">
        <button
          type="button"
          aria-expanded={expanded}
          aria-controls={`${id}-more`}
          onClick={() => setShowAll(!showAll)}
          className="rounded-lg border border-slate-300 px-3 py-1.5 text-sm font-medium text-slate-700"
        >
          {expanded ? "Fewer filters" : `More filters${activeCount ? ` (${activeCount} on)` : ""}`}
        </button>
      </div>
      {/* On phones the rarer filters fold away so the calls stay in view; from sm up they are always shown. */}
      <div id={`${id}-more`} className={`${expanded ? "contents" : "hidden"} sm:contents`}>
        <DestinationField
          destination={filters.destination}
          match={filters.destinationMatch}
          onApply={(destination) => set({ destination }, "replace")}
          onMatchChange={(destinationMatch) => set({ destinationMatch }, "replace")}
          className="col-span-2"
        />
        <DirectionField id={id} value={filters.direction} onChange={(direction) => set({ direction })} />
        {accounts ? (
          <AccountField
            id={id}
            accounts={accounts}
            value={filters.account}
            onChange={(account) => set({ account })}
            className="col-span-2 sm:col-span-1"
          />
        ) : null}
        {suppliers ? (
          <SupplierField
            id={id}
            suppliers={suppliers}
            value={filters.supplier}
            onChange={(supplier) => set({ supplier })}
            className="col-span-2 sm:col-span-1"
          />
        ) : null}
        <QuickRangeField
          active={activeRange}
          onPick={(days) => set(quickRange(days, new Date(), zone.mode))}
          className="col-span-2 sm:col-span-1"
        />
        <DateRangeFields id={id} from={filters.from} until={filters.until} error={problem} onChange={set} />
        <HangupCauseField cause={filters.hangupCause} onApply={(hangupCause) => set({ hangupCause })} />
        <div className="col-span-2 flex items-end sm:col-span-1">
          <button
            type="button"
            disabled={!hasAnyFilter(filters)}
            onClick={() => navigateFilters({}, "push")}
            className="w-full rounded-lg px-3 py-1.5 text-sm font-medium text-slate-600 hover:bg-slate-100 disabled:cursor-not-allowed disabled:opacity-40"
          >
            Clear filters
          </button>
        </div>
      </div>
    </Card>
  );
}
