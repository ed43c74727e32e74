"use client";

import { useId } from "react";
import {
  COMMON_HANGUP_CAUSES,
  QUICK_RANGES,
  SEARCH_FIELDS,
  validSearch,
  type SearchField as SearchBy,
} from "@/lib/portal/call-filters";
import { dialledNumber } from "@/lib/portal/dialled-number";
import { FieldError, fieldErrorId, fieldLabelClass, inlineSelectClass, inputClass } from "@/components/ui/field";
import { useUrlField } from "./use-url-field";

// The call log's own filter fields (the date, direction, account and supplier fields are shared with Reports:
// components/portal/filter-fields.tsx). Each takes the applied value from the URL and reports changes.

/** Typing pauses this long before a typed filter is applied. */
const TYPING_PAUSE_MS = 350;
const DESTINATION = /^\+?\d{0,20}$/;

const PLACEHOLDER: Record<SearchBy, string> = {
  caller: "Caller number starts with…",
  id: "Exact call ID",
  uuid: "Exact call UUID",
};
const SEARCH_ERROR: Record<SearchBy, string> = {
  caller: "Digits, optionally starting with + (spaces, dashes, dots and brackets are fine).",
  id: "A call ID is digits only.",
  uuid: "Up to 128 characters.",
};

interface SearchValue {
  by: SearchBy;
  text: string;
}

/** What a search box sends: a caller number as its digits, however it was pasted; ids and uuids as typed. */
function searched({ by, text }: SearchValue): string {
  return by === "caller" ? dialledNumber(text) : text;
}

/** A destination filter's digits: separators and a leading + dropped (calls store digits only). */
function destinationDigits(text: string): string {
  return dialledNumber(text).replace(/^\+/, "");
}

/** One box, read as the chosen field (caller number, call ID, call UUID); applied once typing pauses. */
export function SearchField({
  search,
  searchBy,
  onApply,
  className,
}: {
  search?: string;
  searchBy?: "id" | "uuid";
  onApply: (search: string | undefined, searchBy: "id" | "uuid" | undefined) => void;
  className?: string;
}) {
  const id = useId();
  const field = useUrlField<SearchValue>({
    urlValue: { by: searchBy ?? "caller", text: search ?? "" },
    same: (a, b) => searched(a) === b.text && (a.text === "" || a.by === b.by),
    valid: (v) => v.text === "" || validSearch(searched(v), v.by),
    apply: (v) => onApply(searched(v) || undefined, v.text && v.by !== "caller" ? v.by : undefined),
    delay: TYPING_PAUSE_MS,
  });
  const { by, text } = field.text;
  const errorId = fieldErrorId(`${id}-search`);
  return (
    <div className={className}>
      <label htmlFor={`${id}-search`} className={fieldLabelClass}>
        Search
      </label>
      <div className="mt-1 flex gap-1.5">
        <select
          aria-label="Search by"
          value={by}
          onChange={(e) => field.setText({ by: e.target.value as SearchBy, text })}
          className={inlineSelectClass}
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
          inputMode={by === "uuid" ? "text" : "numeric"}
          placeholder={PLACEHOLDER[by]}
          value={text}
          onChange={(e) => field.setText({ by, text: e.target.value.trim() })}
          aria-invalid={!field.valid}
          aria-describedby={field.valid ? undefined : errorId}
          className={`min-w-0 flex-1 font-mono ${inputClass({ invalid: !field.valid })}`}
        />
      </div>
      {field.valid ? null : <FieldError id={errorId}>{SEARCH_ERROR[by]}</FieldError>}
    </div>
  );
}

/** Digits of the called number: contained anywhere, or at its start; applied once typing pauses. */
export function DestinationField({
  destination,
  match,
  onApply,
  onMatchChange,
  className,
}: {
  destination?: string;
  match?: "prefix";
  onApply: (destination: string | undefined) => void;
  onMatchChange: (match: "prefix" | undefined) => void;
  className?: string;
}) {
  const id = useId();
  const field = useUrlField<string>({
    urlValue: destination ?? "",
    same: (text, url) => destinationDigits(text) === url,
    valid: (text) => DESTINATION.test(dialledNumber(text)),
    apply: (text) => onApply(destinationDigits(text) || undefined),
    delay: TYPING_PAUSE_MS,
  });
  const errorId = fieldErrorId(`${id}-destination`);
  return (
    <div className={className}>
      <label htmlFor={`${id}-destination`} className={fieldLabelClass}>
        Destination
      </label>
      <div className="mt-1 flex gap-1.5">
        <select
          aria-label="Destination match"
          value={match ?? "contains"}
          onChange={(e) => onMatchChange(e.target.value === "prefix" ? "prefix" : undefined)}
          className={inlineSelectClass}
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
          value={field.text}
          onChange={(e) => field.setText(e.target.value.trim())}
          aria-invalid={!field.valid}
          aria-describedby={field.valid ? undefined : errorId}
          className={`min-w-0 flex-1 font-mono ${inputClass({ invalid: !field.valid })}`}
        />
      </div>
      {field.valid ? null : (
        <FieldError id={errorId}>
          Digits, optionally starting with + (spaces, dashes, dots and brackets are fine).
        </FieldError>
      )}
    </div>
  );
}

const CAUSE = /^[A-Z0-9_]{0,64}$/;

/**
 * The raw hangup cause: picking a suggestion (or clearing) applies it at once; a typed cause applies on Enter
 * or on leaving the field (not while typing: half a cause matches nothing).
 */
export function HangupCauseField({
  cause,
  onApply,
  className,
}: {
  cause?: string;
  onApply: (cause: string | undefined) => void;
  className?: string;
}) {
  const id = useId();
  const field = useUrlField<string>({
    urlValue: cause ?? "",
    same: (text, url) => text.trim().toUpperCase() === url,
    valid: (text) => CAUSE.test(text.trim().toUpperCase()),
    apply: (text) => onApply(text.trim().toUpperCase() || undefined),
    delay: null,
  });
  const errorId = fieldErrorId(`${id}-cause`);
  return (
    <div className={className}>
      <label htmlFor={`${id}-cause`} className={fieldLabelClass}>
        Hangup cause
      </label>
      <input
        id={`${id}-cause`}
        type="search"
        list={`${id}-causes`}
        autoComplete="off"
        placeholder="Any cause"
        value={field.text}
        onChange={(e) => {
          field.setText(e.target.value);
          const picked = e.target.value.toUpperCase();
          if (picked === "" || (COMMON_HANGUP_CAUSES as readonly string[]).includes(picked))
            onApply(picked || undefined);
        }}
        onKeyDown={(e) => {
          // The bar has several text boxes and no submit button, so Enter does not submit it: apply here.
          if (e.key === "Enter") {
            e.preventDefault();
            field.commit();
          }
        }}
        onBlur={field.commit}
        aria-invalid={!field.valid}
        aria-describedby={field.valid ? undefined : errorId}
        className={`mt-1 font-mono ${inputClass({ invalid: !field.valid })}`}
      />
      <datalist id={`${id}-causes`}>
        {COMMON_HANGUP_CAUSES.map((c) => (
          <option key={c} value={c} />
        ))}
      </datalist>
      {field.valid ? null : <FieldError id={errorId}>Letters, digits and _ only, as the switch writes it.</FieldError>}
    </div>
  );
}

/** Today, the last 7 or 30 days (in the shown zone); the pressed one is the range in the URL. */
export function QuickRangeField({
  active,
  onPick,
  className,
}: {
  active: string | undefined;
  onPick: (days: number) => void;
  className?: string;
}) {
  return (
    <fieldset className={className}>
      <legend className={fieldLabelClass}>Quick range</legend>
      <div className="mt-1 inline-flex rounded-lg border border-slate-300 bg-white p-0.5" role="group">
        {QUICK_RANGES.map((r) => (
          <button
            key={r.id}
            type="button"
            aria-pressed={active === r.id}
            onClick={() => onPick(r.days)}
            className={`rounded-md px-2.5 py-1 text-sm font-medium ${active === r.id ? "bg-brand-600 text-white" : "text-slate-600 hover:bg-slate-100"}`}
          >
            {r.label}
          </button>
        ))}
      </div>
    </fieldset>
  );
}
