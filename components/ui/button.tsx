import type { ComponentPropsWithoutRef } from "react";

/** The primary (brand) action; `compact` is the smaller size used in toolbars and empty states. */
export function primaryButtonClass({
  compact = false,
  block = false,
}: { compact?: boolean; block?: boolean } = {}): string {
  const size = compact ? "px-3 py-1.5" : "px-4 py-2";
  return `${block ? "w-full " : ""}rounded-lg bg-brand-600 ${size} text-sm font-semibold text-white shadow-sm hover:bg-brand-700 disabled:cursor-not-allowed disabled:opacity-50`;
}

/** A quiet action next to the primary one (Refresh, Clear filters, Columns). */
export const secondaryButtonClass =
  "rounded-lg border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-700 shadow-xs hover:bg-slate-50 disabled:cursor-not-allowed disabled:opacity-40";

/** A button of either kind; type="button" unless told otherwise, so it never submits a form by accident. */
export function Button({
  variant = "secondary",
  compact = true,
  className = "",
  type = "button",
  ...rest
}: ComponentPropsWithoutRef<"button"> & { variant?: "primary" | "secondary"; compact?: boolean }) {
  const look = variant === "primary" ? primaryButtonClass({ compact }) : secondaryButtonClass;
  return <button type={type} className={`${look} ${className}`.trim()} {...rest} />;
}
