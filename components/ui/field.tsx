import type { ReactNode } from "react";

/** Text, date and select inputs of the portal's forms; `roomy` is the taller one of the rate calculator. */
export function inputClass({ roomy = false, invalid = false }: { roomy?: boolean; invalid?: boolean } = {}): string {
  return `block w-full rounded-lg border ${invalid ? "border-red-500" : "border-slate-300"} bg-white px-3 ${roomy ? "py-2" : "py-1.5"} text-sm shadow-xs focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-100`;
}

/** A select that sits inline before a text box ("Search by", "Destination match"). */
export const inlineSelectClass =
  "rounded-lg border border-slate-300 bg-white px-2 py-1.5 text-sm focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-100";

/** The small label above a filter or form control. */
export const fieldLabelClass = "block text-xs font-medium text-slate-600";

/** The id of a field's error text, for the control's aria-describedby. */
export const fieldErrorId = (id: string) => `${id}-error`;

/** What is wrong with a field, right below it; the control points at it with aria-describedby. */
export function FieldError({ id, children }: { id: string; children: ReactNode }) {
  return (
    <p id={id} className="mt-1 text-xs text-red-700">
      {children}
    </p>
  );
}

/** A labelled control: the label above, the control (given `id`) below it; `className` places it in its form's grid. */
export function Field({
  id,
  label,
  children,
  className,
}: {
  id: string;
  label: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <div className={className}>
      <label htmlFor={id} className={fieldLabelClass}>
        {label}
      </label>
      {children}
    </div>
  );
}
