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
  /** digits: a partial match on the called number, or its start with destinationMatch "prefix" */
  destination?: string;
  destinationMatch?: "prefix";
  hangupCause?: string;
  /** Billing group id (platform sessions). */
  account?: string;
  /** Supplier id (cost sessions: the API refuses it to others). */
  supplier?: string;
  /** Search text, read as searchBy says (a caller number by default). */
  search?: string;
  searchBy?: "id" | "uuid";
}

/** What the search box looks for: a caller number (starts with), a call id, or a call UUID (exact). */
export const SEARCH_FIELDS = [
  { id: "caller", label: "Caller number" },
  { id: "id", label: "Call ID" },
  { id: "uuid", label: "Call UUID" },
] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number]["id"];

/** Whether a search text can be what it is searched as (the API would refuse it otherwise). */
export function validSearch(text: string, by: SearchField): boolean {
  if (by === "id") return /^\d{1,19}$/.test(text);
  if (by === "uuid") return /^[^\u0000-\u001f\u007f]{1,128}$/.test(text);
  return /^\+?\d{1,32}$/.test(text);
}

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)));

// Each field on its own, so one bad value in a hand-edited URL drops only that filter.
const fieldSchemas = {
  from: day,
  until: day,
  direction: z.enum(["inbound", "outbound"]),
  destination: z
    .string()
    .trim()
    .regex(/^\+?[0-9]{1,20}$/)
    .transform((s) => s.replace(/^\+/, "")),
  destinationMatch: z.literal("prefix"),
  hangupCause: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_]{1,64}$/),
  account: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  supplier: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  search: z
    .string()
    .trim()
    .regex(/^[^\u0000-\u001f\u007f]{1,128}$/),
  searchBy: z.enum(["id", "uuid"]),
} as const;

/** URL parameter name of each filter. */
const PARAM: Record<keyof CallFilters, string> = {
  from: "from",
  until: "until",
  direction: "direction",
  destination: "destination",
  destinationMatch: "match",
  hangupCause: "cause",
  account: "account",
  supplier: "supplier",
  search: "q",
  searchBy: "by",
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
  // A search that cannot be what it is searched as is dropped, like any bad value.
  if (out.search && !validSearch(out.search, out.searchBy ?? "caller")) {
    delete out.search;
    delete out.searchBy;
  }
  if (!out.search) delete out.searchBy;
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

/** Whole days are the viewer's local days, or UTC days when the portal shows UTC. */
export type DayZone = "local" | "utc";

/** Midnight (or the last millisecond) of a yyyy-mm-dd day in the given zone, as a Date. */
function dayBound(date: string, endOfDay: boolean, zone: DayZone): Date {
  const [y, m, d] = date.split("-").map(Number);
  const [h, min, s, ms] = endOfDay ? [23, 59, 59, 999] : [0, 0, 0, 0];
  return zone === "utc" ? new Date(Date.UTC(y, m - 1, d, h, min, s, ms)) : new Date(y, m - 1, d, h, min, s, ms);
}

/** /v1/calls (and /v1/calls/export) query parameters for these filters. */
export function callFiltersToApiQuery(filters: CallFilters, zone: DayZone = "local"): URLSearchParams {
  const q = new URLSearchParams();
  if (filters.from) q.set("startTime[gte]", dayBound(filters.from, false, zone).toISOString());
  if (filters.until) q.set("startTime[lte]", dayBound(filters.until, true, zone).toISOString());
  if (filters.direction) q.set("direction", filters.direction);
  if (filters.destination) q.set(filters.destinationMatch === "prefix" ? "toPrefix" : "to", filters.destination);
  if (filters.hangupCause) q.set("hangupCause", filters.hangupCause);
  if (filters.account) q.set("billingGroupId", filters.account);
  if (filters.supplier) q.set("supplierId", filters.supplier);
  if (filters.search) q.set(filters.searchBy ?? "from", filters.search);
  return q;
}

export function toDayString(d: Date, zone: DayZone = "local"): string {
  const [y, m, day] =
    zone === "utc"
      ? [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()]
      : [d.getFullYear(), d.getMonth(), d.getDate()];
  return `${y}-${String(m + 1).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

export const QUICK_RANGES = [
  { id: "today", label: "Today", days: 1 },
  { id: "7d", label: "7 days", days: 7 },
  { id: "30d", label: "30 days", days: 30 },
] as const;

/** The last `days` calendar days up to and including today, in the viewer's time zone (or UTC). */
export function quickRange(days: number, now = new Date(), zone: DayZone = "local"): { from: string; until: string } {
  const start =
    zone === "utc"
      ? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)))
      : new Date(now.getFullYear(), now.getMonth(), now.getDate() - (days - 1));
  return { from: toDayString(start, zone), until: toDayString(now, zone) };
}

/**
 * What is wrong with a range of days, said beside its fields (the API would answer 400): From after Until.
 * yyyy-mm-dd strings compare as dates.
 */
export function rangeProblem(range: { from?: string; until?: string }): string | null {
  if (range.from && range.until && range.from > range.until)
    return "From is after Until: choose an earlier From or a later Until.";
  return null;
}

/** Whether anything narrows the list (how the destination or search is matched does not, alone). */
export function hasAnyFilter(filters: CallFilters): boolean {
  return Object.entries(filters).some(
    ([key, value]) => key !== "destinationMatch" && key !== "searchBy" && Boolean(value),
  );
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
