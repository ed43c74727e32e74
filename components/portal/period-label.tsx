import type { Period } from "@/lib/portal/period";

/**
 * The period a total or chart covers, in words next to it: "1 – 30 Nov 2026, America/New_York", and a
 * "Partial" mark (with why) while the period is not over. Every figure of money or time carries one.
 */
export function PeriodLabel({ period, className = "" }: { period: Period; className?: string }) {
  return (
    <p
      className={`flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-slate-600 ${className}`.trim()}
      data-testid="period"
    >
      <span data-testid="period-label">{period.label}</span>
      {period.partial ? (
        <span
          className="rounded-full bg-amber-50 px-2 py-0.5 font-medium text-amber-900"
          title={`Partial period: ${period.partial}`}
          data-testid="period-partial"
        >
          Partial: {period.partial}
        </span>
      ) : null}
    </p>
  );
}
