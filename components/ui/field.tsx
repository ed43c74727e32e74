import type { ReactNode } from "react";

/** Text, date and select inputs of the portal's forms; `roomy` is the taller one of the rate calculator. */
export function inputClass({ roomy = false }: { roomy?: boolean } = {}): string {
  return `block w-full rounded-lg border border-slate-300 bg-white px-3 ${roomy ? "py-2" : "py-1.5"} text-sm shadow-xs focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-100`;
}

/** The small label above a filter or form control. */
export const fieldLabelClass = "block text-xs font-medium text-slate-600";

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
