"use client";

import { useEffect, useId, useState } from "react";
import { useIsClient } from "../use-is-client";
import { useTimeZone } from "../portal/time-zone";
import {
  COMMON_HANGUP_CAUSES,
  QUICK_RANGES,
  SEARCH_FIELDS,
  callFiltersToSearch,
  hasAnyFilter,
  quickRange,
  validSearch,
  type CallFilters,
  type SearchField,
} from "@/lib/portal/call-filters";
import { fieldLabelClass, inputClass as uiInputClass } from "@/components/ui/field";
import { AccountField, DateRangeFields, DirectionField } from "../portal/filter-fields";

/** An account a platform session may filter by. */
export interface AccountOption {
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

const DESTINATION = /^\+?\d{0,20}$/;
const inputClass = uiInputClass();
const labelClass = fieldLabelClass;

export function CallFiltersBar({ filters, accounts }: { filters: CallFilters; accounts?: AccountOption[] }) {
  const id = useId();
  const set = (patch: Partial<CallFilters>, mode: "push" | "replace" = "push") =>
    navigateFilters({ ...filters, ...patch }, mode);

  // Destination is typed: keep the text locally and write the URL once typing pauses.
  const [destination, setDestination] = useState(filters.destination ?? "");
  const [seenDestination, setSeenDestination] = useState(filters.destination);
  if (seenDestination !== filters.destination) {
    // The URL changed under us (back button, "Clear"): show what it says.
    setSeenDestination(filters.destination);
    if (destination.replace(/^\+/, "") !== (filters.destination ?? "")) setDestination(filters.destination ?? "");
  }
  const destinationValid = DESTINATION.test(destination);
  useEffect(() => {
    const wanted = destination.replace(/^\+/, "");
    if (!DESTINATION.test(destination) || wanted === (filters.destination ?? "")) return;
    const t = setTimeout(() => navigateFilters({ ...filters, destination: wanted || undefined }, "replace"), 350);
    return () => clearTimeout(t);
  }, [destination, filters]);

  const [cause, setCause] = useState(filters.hangupCause ?? "");
  const [seenCause, setSeenCause] = useState(filters.hangupCause);
  if (seenCause !== filters.hangupCause) {
    setSeenCause(filters.hangupCause);
    setCause(filters.hangupCause ?? "");
  }
  const commitCause = () => {
    const value = cause.trim().toUpperCase();
    if (value !== (filters.hangupCause ?? "") && /^[A-Z0-9_]{0,64}$/.test(value))
      set({ hangupCause: value || undefined });
  };

  // Search: one box, read as the chosen field; written to the URL once typing pauses and it is valid.
  const searchBy: SearchField = filters.searchBy ?? "caller";
  const [searchField, setSearchField] = useState<SearchField>(searchBy);
  const [search, setSearch] = useState(filters.search ?? "");
  const [seenSearch, setSeenSearch] = useState(`${filters.searchBy}|${filters.search}`);
  if (seenSearch !== `${filters.searchBy}|${filters.search}`) {
    setSeenSearch(`${filters.searchBy}|${filters.search}`);
    setSearch(filters.search ?? "");
    setSearchField(filters.searchBy ?? "caller");
  }
  const searchValid = search === "" || validSearch(search, searchField);
  useEffect(() => {
    const wantedBy = searchField === "caller" ? undefined : searchField;
    if (!(search === "" || validSearch(search, searchField))) return;
    if ((search || undefined) === filters.search && (search ? wantedBy : undefined) === filters.searchBy) return;
    const t = setTimeout(
      () =>
        navigateFilters(
          { ...filters, search: search || undefined, searchBy: search ? wantedBy : undefined },
          "replace",
        ),
      350,
    );
    return () => clearTimeout(t);
  }, [search, searchField, filters]);

  const [showAll, setShowAll] = useState(false);
  const activeCount = [
    filters.from || filters.until,
    filters.direction,
    filters.destination,
    filters.hangupCause,
    filters.account,
  ].filter(Boolean).length;

  // "Today" depends on the viewer's clock and time zone: decided in the browser only.
  const isClient = useIsClient();
  const zone = useTimeZone();
  const activeRange =
    isClient &&
    QUICK_RANGES.find((r) => {
      const range = quickRange(r.days, new Date(), zone.mode);
      return filters.from === range.from && filters.until === range.until;
    })?.id;

  return (
    <form
      role="search"
      aria-label="Filter calls"
      onSubmit={(e) => {
        e.preventDefault();
        commitCause();
      }}
      className="grid grid-cols-2 gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-3 lg:grid-cols-6 lg:items-end"
    >
      <div className="col-span-2 sm:col-span-3 lg:col-span-2">
        <label htmlFor={`${id}-search`} className={labelClass}>
          Search
        </label>
        <div className="mt-1 flex gap-1.5">
          <select
            aria-label="Search by"
            value={searchField}
            onChange={(e) => setSearchField(e.target.value as SearchField)}
            className="rounded-lg border border-slate-300 bg-white px-2 py-1.5 text-sm focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-100"
          >
            {SEARCH_FIELDS.map((f) => (
              <option key={f.id} value={f.id}>
                {f.label}
              </option>
            ))}
          </select>
          <input
            id={`${id}-search`}
            type="search"
            autoComplete="off"
            inputMode={searchField === "uuid" ? "text" : "numeric"}
            placeholder={
              searchField === "caller"
                ? "Caller number starts with…"
                : searchField === "id"
                  ? "Exact call ID"
                  : "Exact call UUID"
            }
            value={search}
            onChange={(e) => setSearch(e.target.value.trim())}
            aria-invalid={!searchValid}
            aria-describedby={searchValid ? undefined : `${id}-search-error`}
            className={`min-w-0 flex-1 font-mono ${inputClass} ${searchValid ? "" : "border-red-400"}`}
          />
        </div>
        {searchValid ? null : (
          <p id={`${id}-search-error`} className="mt-1 text-xs text-red-700">
            {searchField === "caller"
              ? "Digits only, optionally starting with +."
              : searchField === "id"
                ? "A call ID is digits only."
                : "Up to 128 characters."}
          </p>
        )}
      </div>
      <div className="col-span-2 flex items-center justify-between sm:hidden">
        <button
          type="button"
          aria-expanded={showAll}
          aria-controls={`${id}-more`}
          onClick={() => setShowAll(!showAll)}
          className="rounded-lg border border-slate-300 px-3 py-1.5 text-sm font-medium text-slate-700"
        >
          {showAll ? "Fewer filters" : `More filters${activeCount ? ` (${activeCount} on)` : ""}`}
        </button>
      </div>
      {/* On phones the rarer filters fold away so the calls stay in view; from sm up they are always shown. */}
      <div id={`${id}-more`} className={`${showAll ? "contents" : "hidden"} sm:contents`}>
        <div className="col-span-2">
          <label htmlFor={`${id}-destination`} className={labelClass}>
            Destination
          </label>
          <div className="mt-1 flex gap-1.5">
            <select
              aria-label="Destination match"
              value={filters.destinationMatch ?? "contains"}
              onChange={(e) => set({ destinationMatch: e.target.value === "prefix" ? "prefix" : undefined }, "replace")}
              className="rounded-lg border border-slate-300 bg-white px-2 py-1.5 text-sm focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-100"
            >
              <option value="contains">contains</option>
              <option value="prefix">starts with</option>
            </select>
            <input
              id={`${id}-destination`}
              type="search"
              inputMode="tel"
              autoComplete="off"
              placeholder="e.g. 4420"
              value={destination}
              onChange={(e) => setDestination(e.target.value.trim())}
              aria-invalid={!destinationValid}
              aria-describedby={destinationValid ? undefined : `${id}-destination-error`}
              className={`min-w-0 flex-1 font-mono ${inputClass} ${destinationValid ? "" : "border-red-400"}`}
            />
          </div>
          {destinationValid ? null : (
            <p id={`${id}-destination-error`} className="mt-1 text-xs text-red-700">
              Digits only, optionally starting with +.
            </p>
          )}
        </div>
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
        <fieldset className="col-span-2">
          <legend className={labelClass}>Quick range</legend>
          <div className="mt-1 inline-flex rounded-lg border border-slate-300 bg-white p-0.5" role="group">
            {QUICK_RANGES.map((r) => (
              <button
                key={r.id}
                type="button"
                aria-pressed={activeRange === r.id}
                onClick={() => set(quickRange(r.days, new Date(), zone.mode))}
                className={`rounded-md px-2.5 py-1 text-sm font-medium ${activeRange === r.id ? "bg-brand-600 text-white" : "text-slate-600 hover:bg-slate-100"}`}
              >
                {r.label}
              </button>
            ))}
          </div>
        </fieldset>
        <DateRangeFields id={id} from={filters.from} until={filters.until} onChange={set} />
        <div>
          <label htmlFor={`${id}-cause`} className={labelClass}>
            Hangup cause
          </label>
          <input
            id={`${id}-cause`}
            type="search"
            list={`${id}-causes`}
            autoComplete="off"
            placeholder="Any cause"
            value={cause}
            onChange={(e) => {
              setCause(e.target.value);
              // Picking a suggestion (or clearing) applies at once; typing applies on Enter or leaving the field.
              const picked = e.target.value.toUpperCase();
              if (picked === "" || (COMMON_HANGUP_CAUSES as readonly string[]).includes(picked)) {
                set({ hangupCause: picked || undefined });
              }
            }}
            onBlur={commitCause}
            className={`mt-1 font-mono ${inputClass}`}
          />
          <datalist id={`${id}-causes`}>
            {COMMON_HANGUP_CAUSES.map((c) => (
              <option key={c} value={c} />
            ))}
          </datalist>
        </div>
        <div className="col-span-2 flex items-end sm:col-span-1">
          <button
            type="button"
            disabled={!hasAnyFilter(filters)}
            onClick={() => {
              setDestination("");
              setCause("");
              setSearch("");
              navigateFilters({}, "push");
            }}
            className="w-full rounded-lg px-3 py-1.5 text-sm font-medium text-slate-600 hover:bg-slate-100 disabled:cursor-not-allowed disabled:opacity-40"
          >
            Clear filters
          </button>
        </div>
      </div>
    </form>
  );
}
