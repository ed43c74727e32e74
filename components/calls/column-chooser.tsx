"use client";

import { useId, useState } from "react";
import { CALL_COLUMN_LABEL, defaultCallColumns, type CallColumnId } from "@/lib/portal/call-columns";
import { secondaryButtonClass } from "../ui/button";

/**
 * Which of the session's columns the call log shows; the start time always is. Kept per person
 * (useColumnChoice). The choices exist in the page only while open, so their labels never shadow the filters'.
 */
export function ColumnChooser({
  available,
  shown,
  onChoose,
}: {
  available: CallColumnId[];
  shown: CallColumnId[];
  onChoose: (columns: CallColumnId[] | null) => void;
}) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const isDefault = shown.join() === defaultCallColumns(available).join();
  return (
    <div
      className="relative"
      data-testid="column-chooser"
      onKeyDown={(e) => {
        if (e.key === "Escape") setOpen(false);
      }}
    >
      <button
        type="button"
        aria-expanded={open}
        aria-controls={`${id}-panel`}
        onClick={() => setOpen(!open)}
        className={secondaryButtonClass}
      >
        Columns
      </button>
      {open ? (
        <fieldset
          id={`${id}-panel`}
          className="absolute right-0 z-20 mt-1 w-56 rounded-lg border border-slate-200 bg-white p-3 shadow-lg"
        >
          <legend className="sr-only">Columns shown</legend>
          <ul className="space-y-1">
            {available.map((c) => (
              <li key={c}>
                <label htmlFor={`${id}-${c}`} className="flex items-center gap-2 text-sm text-slate-800">
                  <input
                    id={`${id}-${c}`}
                    type="checkbox"
                    checked={shown.includes(c)}
                    disabled={c === "startTime"}
                    onChange={(e) => onChoose(e.target.checked ? [...shown, c] : shown.filter((x) => x !== c))}
                  />
                  {CALL_COLUMN_LABEL[c]}
                </label>
              </li>
            ))}
          </ul>
          <div className="mt-2 flex justify-between">
            <button
              type="button"
              disabled={isDefault}
              onClick={() => onChoose(null)}
              className="text-sm font-medium text-brand-700 hover:text-brand-600 disabled:cursor-not-allowed disabled:text-slate-400"
            >
              Reset to default
            </button>
            <button type="button" onClick={() => setOpen(false)} className="text-sm font-medium text-slate-700">
              Done
            </button>
          </div>
        </fieldset>
      ) : null}
    </div>
  );
}
