"use client";

import { useEffect, useId, useState } from "react";
import { useIsClient } from "../use-is-client";
import {
  COMMON_HANGUP_CAUSES,
  QUICK_RANGES,
  callFiltersToSearch,
  hasAnyFilter,
  quickRange,
  type CallFilters,
} from "@/lib/portal/call-filters";

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
const inputClass =
  "block w-full rounded-lg border border-slate-300 bg-white px-3 py-1.5 text-sm shadow-xs focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-100";
const labelClass = "block text-xs font-medium text-slate-600";

export function CallFiltersBar({ filters }: { filters: CallFilters }) {
  const id = useId();
  const set = (patch: Partial<CallFilters>, mode: "push" | "replace" = "push") => navigateFilters({ ...filters, ...patch }, mode);

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
    if (value !== (filters.hangupCause ?? "") && /^[A-Z0-9_]{0,64}$/.test(value)) set({ hangupCause: value || undefined });
  };

  // "Today" depends on the viewer's clock and time zone: decided in the browser only.
  const isClient = useIsClient();
  const activeRange = isClient && QUICK_RANGES.find((r) => {
    const range = quickRange(r.days);
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
      className="grid grid-cols-2 gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-3 lg:grid-cols-[auto_auto_auto_1fr_1fr_1fr_auto] lg:items-end"
    >
      <fieldset className="col-span-2 sm:col-span-3 lg:col-span-1">
        <legend className={labelClass}>Quick range</legend>
        <div className="mt-1 inline-flex rounded-lg border border-slate-300 bg-white p-0.5" role="group">
          {QUICK_RANGES.map((r) => (
            <button
              key={r.id}
              type="button"
              aria-pressed={activeRange === r.id}
              onClick={() => set(quickRange(r.days))}
              className={`rounded-md px-2.5 py-1 text-sm font-medium ${activeRange === r.id ? "bg-brand-600 text-white" : "text-slate-600 hover:bg-slate-100"}`}
            >
              {r.label}
            </button>
          ))}
        </div>
      </fieldset>
      <div>
        <label htmlFor={`${id}-from`} className={labelClass}>
          From
        </label>
        <input
          id={`${id}-from`}
          type="date"
          value={filters.from ?? ""}
          max={filters.until}
          onChange={(e) => set({ from: e.target.value || undefined })}
          className={`mt-1 ${inputClass}`}
        />
      </div>
      <div>
        <label htmlFor={`${id}-until`} className={labelClass}>
          Until
        </label>
        <input
          id={`${id}-until`}
          type="date"
          value={filters.until ?? ""}
          min={filters.from}
          onChange={(e) => set({ until: e.target.value || undefined })}
          className={`mt-1 ${inputClass}`}
        />
      </div>
      <div>
        <label htmlFor={`${id}-direction`} className={labelClass}>
          Direction
        </label>
        <select
          id={`${id}-direction`}
          value={filters.direction ?? ""}
          onChange={(e) => set({ direction: (e.target.value || undefined) as CallFilters["direction"] })}
          className={`mt-1 ${inputClass}`}
        >
          <option value="">Any direction</option>
          <option value="outbound">Outbound</option>
          <option value="inbound">Inbound</option>
        </select>
      </div>
      <div>
        <label htmlFor={`${id}-destination`} className={labelClass}>
          Destination contains
        </label>
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
          className={`mt-1 font-mono ${inputClass} ${destinationValid ? "" : "border-red-400"}`}
        />
        {destinationValid ? null : (
          <p id={`${id}-destination-error`} className="mt-1 text-xs text-red-700">
            Digits only, optionally starting with +.
          </p>
        )}
      </div>
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
            navigateFilters({}, "push");
          }}
          className="w-full rounded-lg px-3 py-1.5 text-sm font-medium text-slate-600 hover:bg-slate-100 disabled:cursor-not-allowed disabled:opacity-40"
        >
          Clear filters
        </button>
      </div>
    </form>
  );
}
