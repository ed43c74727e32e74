import { formatAmount } from "@/lib/portal/format";
import type { Period } from "@/lib/portal/period";
import type { SpendSeries } from "@/lib/calls/spend-per-day";
import { PeriodLabel } from "../portal/period-label";

// A day key is already the account's day: UTC here only reads the yyyy-mm-dd back as written.
const DAY_LABEL = new Intl.DateTimeFormat("en", { month: "short", day: "numeric", timeZone: "UTC" });

/** Bar height in tenths of a percent, from exact micros (integer division, no float money). */
function share(value: bigint, max: bigint): number {
  return max === 0n ? 0 : Number((value * 1000n) / max) / 10;
}

/**
 * Spend per day of the account's zone as CSS bars, one chart per currency (bars of different currencies never share
 * an axis); every bar carries its exact amount for hover and screen readers, every chart its period.
 */
export function SpendChart({
  series,
  period,
  timeZone,
  label = "Spend",
}: {
  series: SpendSeries[];
  period: Period;
  /** The zone the days are cut in (the account's). */
  timeZone: string;
  label?: string;
}) {
  if (series.length === 0) {
    return (
      <div
        className="grid h-48 place-items-center rounded-lg bg-slate-50 text-sm text-slate-600"
        data-testid="spend-empty"
      >
        No calls in the last 30 days.
      </div>
    );
  }
  return (
    <div className="space-y-6">
      {series.map((s) => {
        const max = s.days.reduce((m, d) => (d.spendMicros > m ? d.spendMicros : m), 0n);
        const first = s.days[0].day;
        const last = s.days[s.days.length - 1].day;
        return (
          <figure key={s.currency} data-testid={`spend-${s.currency}`}>
            <figcaption className="mb-3 flex flex-wrap items-baseline justify-between gap-2">
              <span>
                <span className="block text-sm font-medium text-slate-600">
                  {label} in {s.currency} per day, last 30 days
                </span>
                <PeriodLabel period={period} className="mt-0.5" />
              </span>
              <span className="text-lg font-semibold tabular-nums">{formatAmount(s.totalMicros, s.currency)}</span>
            </figcaption>
            <div className="relative">
              <div
                className="pointer-events-none absolute inset-x-0 top-0 border-t border-dashed border-slate-200"
                aria-hidden
              />
              <span
                className="absolute -top-2.5 right-0 bg-white pl-1 text-[11px] tabular-nums text-slate-600"
                aria-hidden
              >
                {formatAmount(max, s.currency)}
              </span>
              <ol
                className="flex h-44 items-end gap-[3px] border-b border-slate-300 pt-3"
                aria-label={`Daily ${label.toLowerCase()} in ${s.currency}`}
              >
                {s.days.map((d) => {
                  const label = `${DAY_LABEL.format(new Date(`${d.day}T00:00:00Z`))}: ${formatAmount(d.spendMicros, s.currency)} over ${d.calls} ${d.calls === 1 ? "call" : "calls"}`;
                  return (
                    <li
                      key={d.day}
                      className="group relative flex h-full flex-1 items-end"
                      title={label}
                      data-testid="day-bar"
                      data-day={d.day}
                    >
                      <span className="sr-only">{label}</span>
                      <div
                        aria-hidden
                        className="w-full rounded-t-sm bg-brand-500 transition-colors group-hover:bg-brand-700"
                        style={{ height: `${Math.max(share(d.spendMicros, max), d.spendMicros > 0n ? 1 : 0)}%` }}
                      />
                    </li>
                  );
                })}
              </ol>
            </div>
            <div className="mt-1 flex justify-between text-[11px] text-slate-600" aria-hidden>
              <span>{DAY_LABEL.format(new Date(`${first}T00:00:00Z`))}</span>
              <span>
                {DAY_LABEL.format(new Date(`${last}T00:00:00Z`))} (days in {timeZone})
              </span>
            </div>
          </figure>
        );
      })}
    </div>
  );
}
