import type { ReactNode } from "react";

/** One figure with its label above it, inside a <dl>: totals, summaries, the calculator's results. */
export function Stat({
  label,
  children,
  testId,
  size = "md",
  className = "",
}: {
  label: ReactNode;
  children: ReactNode;
  testId?: string;
  size?: "sm" | "md" | "lg";
  className?: string;
}) {
  const value = size === "lg" ? "text-xl" : size === "md" ? "text-base" : "text-sm";
  return (
    <div className={className}>
      <dt className="text-xs text-slate-600">{label}</dt>
      <dd className={`mt-0.5 font-semibold tabular-nums ${value}`} data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}
