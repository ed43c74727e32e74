import { z } from "zod";

/**
 * The call log's filters as they live in the portal URL (shareable, survive reload), and their
 * translation to the /v1/calls query. Dates are whole days in the viewer's time zone.
 */
export interface CallFilters {
  /** yyyy-mm-dd, inclusive */
  from?: string;
  /** yyyy-mm-dd, inclusive */
  until?: string;
  direction?: "inbound" | "outbound";
  /** digits (partial match on the called number) */
  destination?: string;
  hangupCause?: string;
}

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)));

// Each field on its own, so one bad value in a hand-edited URL drops only that filter.
const fieldSchemas = {
  from: day,
  until: day,
  direction: z.enum(["inbound", "outbound"]),
  destination: z.string().trim().regex(/^\+?[0-9]{1,20}$/).transform((s) => s.replace(/^\+/, "")),
  hangupCause: z.string().trim().regex(/^[A-Za-z0-9_]{1,64}$/),
} as const;

/** URL parameter name of each filter. */
const PARAM: Record<keyof CallFilters, string> = {
  from: "from",
  until: "until",
  direction: "direction",
  destination: "destination",
  hangupCause: "cause",
};

type ParamSource = { get(name: string): string | null };

export function parseCallFilters(params: ParamSource): CallFilters {
  const out: CallFilters = {};
  for (const key of Object.keys(fieldSchemas) as (keyof CallFilters)[]) {
    const raw = params.get(PARAM[key]);
    if (raw === null || raw === "") continue;
    const parsed = fieldSchemas[key].safeParse(raw);
    if (parsed.success) (out as Record<string, string>)[key] = parsed.data;
  }
  return out;
}

/** The portal URL's search string for these filters (other parameters kept as given). */
export function callFiltersToSearch(filters: CallFilters, keep?: URLSearchParams): string {
  const params = new URLSearchParams(keep);
  for (const key of Object.keys(PARAM) as (keyof CallFilters)[]) {
    const value = filters[key];
    if (value) params.set(PARAM[key], value);
    else params.delete(PARAM[key]);
  }
  const s = params.toString();
  return s ? `?${s}` : "";
}

/** Local midnight of a yyyy-mm-dd day, as a Date (the viewer's time zone). */
function localDay(date: string, endOfDay: boolean): Date {
  const [y, m, d] = date.split("-").map(Number);
  return endOfDay ? new Date(y, m - 1, d, 23, 59, 59, 999) : new Date(y, m - 1, d, 0, 0, 0, 0);
}

/** /v1/calls (and /v1/calls/export) query parameters for these filters. */
export function callFiltersToApiQuery(filters: CallFilters): URLSearchParams {
  const q = new URLSearchParams();
  if (filters.from) q.set("startTime[gte]", localDay(filters.from, false).toISOString());
  if (filters.until) q.set("startTime[lte]", localDay(filters.until, true).toISOString());
  if (filters.direction) q.set("direction", filters.direction);
  if (filters.destination) q.set("to", filters.destination);
  if (filters.hangupCause) q.set("hangupCause", filters.hangupCause);
  return q;
}

export function toDayString(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

export const QUICK_RANGES = [
  { id: "today", label: "Today", days: 1 },
  { id: "7d", label: "7 days", days: 7 },
  { id: "30d", label: "30 days", days: 30 },
] as const;

/** The last `days` calendar days up to and including today, in the viewer's time zone. */
export function quickRange(days: number, now = new Date()): { from: string; until: string } {
  const start = new Date(now.getFullYear(), now.getMonth(), now.getDate() - (days - 1));
  return { from: toDayString(start), until: toDayString(now) };
}

export function hasAnyFilter(filters: CallFilters): boolean {
  return Object.values(filters).some(Boolean);
}

/** Common hangup causes (FreeSWITCH names), offered as suggestions; any cause can be typed. */
export const COMMON_HANGUP_CAUSES = [
  "NORMAL_CLEARING",
  "NO_ANSWER",
  "USER_BUSY",
  "CALL_REJECTED",
  "ORIGINATOR_CANCEL",
  "NO_ROUTE_DESTINATION",
  "UNALLOCATED_NUMBER",
  "NORMAL_TEMPORARY_FAILURE",
  "RECOVERY_ON_TIMER_EXPIRE",
  "INVALID_NUMBER_FORMAT",
] as const;
