/**
 * The period a figure covers, said in words next to it (docs/contract.md §8): every total and chart names its
 * days and their zone, and a period that is not over yet (or that a range cuts) is marked partial. Days are
 * yyyy-mm-dd, inclusive, in the zone the portal shows.
 */
export interface DayRange {
  from?: string;
  until?: string;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function parts(day: string): [number, number, number] {
  const [y, m, d] = day.split("-").map(Number);
  return [y, m, d];
}

/** "24 Nov 2026" */
export function formatDay(day: string): string {
  const [y, m, d] = parts(day);
  return `${d} ${MONTHS[m - 1]} ${y}`;
}

/** "Nov 2026" */
export function formatMonth(month: string): string {
  const [y, m] = month.split("-").map(Number);
  return `${MONTHS[m - 1]} ${y}`;
}

/** "1 Aug – 24 Nov 2026", "1 – 24 Nov 2026", "28 Dec 2025 – 3 Jan 2026", "24 Nov 2026". */
export function formatDayRange(from: string, until: string): string {
  if (from === until) return formatDay(from);
  const [fy, fm, fd] = parts(from);
  const [uy, um] = parts(until);
  const end = formatDay(until);
  if (fy !== uy) return `${formatDay(from)} – ${end}`;
  if (fm !== um) return `${fd} ${MONTHS[fm - 1]} – ${end}`;
  return `${fd} – ${end}`;
}

/** The days of a range in words: "1 Aug – 24 Nov 2026", "Since 1 Aug 2026", "Until 24 Nov 2026", "All time". */
export function periodText(range: DayRange): string {
  if (range.from && range.until) return formatDayRange(range.from, range.until);
  if (range.from) return `Since ${formatDay(range.from)}`;
  if (range.until) return `Until ${formatDay(range.until)}`;
  return "All time";
}

/** The zone of periods over every account at once (staff Reports without an account): accounts' zones differ. */
export const ALL_ACCOUNTS_ZONE = "UTC";

/**
 * Which zone a screen's periods are cut in, said with them (docs/contract.md "Periods on screens"): one account's
 * own zone ("Asia/Tokyo (the account's time zone)"), or UTC over every account.
 */
export function periodZone(zone: string, of: "account" | "all accounts"): string {
  return of === "account" ? `${zone} (the account's time zone)` : `${zone} (every account, whatever its zone)`;
}

export interface Period {
  /** "1 – 30 Nov 2026, America/New_York" */
  label: string;
  /** Why the figures are not final, when they are not: the period runs to today or beyond ("to date, ..."). */
  partial: string | null;
}

/** A range as a stated period in `zone`, and whether it is still running on `today` (in the same zone). */
export function describePeriod(range: DayRange, zone: string, today: string): Period {
  const running = range.until === undefined || range.until >= today;
  const started = range.from === undefined || range.from <= today;
  return {
    label: `${periodText(range)}, ${zone}`,
    partial: running && started ? `to date, ${formatDay(today)} not over` : null,
  };
}

/** The last day of a yyyy-mm month. */
export function lastDayOfMonth(month: string): string {
  const [y, m] = month.split("-").map(Number);
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return `${month}-${String(days).padStart(2, "0")}`;
}

/** This month as a range (first to last day) of the month holding `today`. */
export function monthOf(today: string): Required<DayRange> {
  const month = today.slice(0, 7);
  return { from: `${month}-01`, until: lastDayOfMonth(month) };
}

/**
 * Whether a day or month bucket of a report holds all of its days: a month the range starts or ends inside,
 * and a day or month that today is in (or before), hold only part. The note says which part.
 */
export function bucketCoverage(
  key: string,
  groupBy: "day" | "month",
  range: DayRange,
  today: string,
): { partial: boolean; note: string | null } {
  const first = groupBy === "day" ? key : `${key}-01`;
  const last = groupBy === "day" ? key : lastDayOfMonth(key);
  if (range.from && range.from > first) return { partial: true, note: `from ${formatDay(range.from)}` };
  if (range.until && range.until < last) return { partial: true, note: `until ${formatDay(range.until)}` };
  if (today <= last) return { partial: true, note: "to date" };
  return { partial: false, note: null };
}
