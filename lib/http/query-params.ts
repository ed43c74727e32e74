import { z } from "zod";

/**
 * The instants a date filter may name: years 0001 to 9999 in UTC (what an ISO year of four digits, and so
 * `toISOString()` in a statement, can write), and such that rounding one outward to a whole UTC day, as the usage
 * report does to read its rollups (lib/calls/usage-sums.ts planUsage), stays inside: so the last one is
 * 9999-12-31T00:00:00Z, not the day's last millisecond, which rounds up to year 10000 (a 500 once).
 */
export const FIRST_INSTANT = Date.parse("0001-01-01T00:00:00Z");
export const LAST_INSTANT = Date.parse("9999-12-31T00:00:00Z");
export const INSTANT_RANGE_MESSAGE = "must lie between 0001-01-01T00:00:00Z and 9999-12-31T00:00:00Z";

export function isStorableInstant(text: string): boolean {
  const ms = Date.parse(text);
  return ms >= FIRST_INSTANT && ms <= LAST_INSTANT;
}

/** An optional date filter of a listing: an ISO date (00:00:00Z of that day) or a timestamp with its offset. */
export const instantParam = (description: string) =>
  z
    .union([z.iso.datetime({ offset: true }), z.iso.date()], {
      error: "must be an ISO 8601 date (2026-01-31) or timestamp with offset (2026-01-31T12:00:00Z)",
    })
    .refine(isStorableInstant, { message: INSTANT_RANGE_MESSAGE })
    .optional()
    .describe(description);

/** `pageSize` of a cursor-paged listing (docs/contract.md §4): digits only, 1..max, the default when absent. */
export const pageSizeParam = ({ max, fallback, items }: { max: number; fallback: number; items: string }) => {
  const message = `must be an integer between 1 and ${max}`;
  return z
    .string()
    .regex(/^\d{1,7}$/, message)
    .pipe(z.coerce.number<string>().int().min(1, message).max(max, message))
    .optional()
    .default(fallback)
    .describe(`${items} per page, 1..${max}`);
};

/**
 * Bound filter text: control characters are never valid (NUL among them, which the database would refuse:
 * lib/db/storable-text.ts). Every free-text query parameter of a listing is one of these.
 */
export const filterTextParam = (max: number, description: string) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters")
    .optional()
    .describe(description);

/** The paging part of every cursor-paged listing's answer (docs/contract.md §4). */
export const pageEnvelope = {
  nextPageUrl: z
    .string()
    .nullable()
    .describe("Absolute URL of the next page (all filters, pageSize and cursor); null when hasMore is false"),
  meta: z.object({
    pageSize: z.number().int().describe("Page size used"),
    hasMore: z.boolean().describe("True when more pages exist"),
  }),
};

/** A query string as an operation's schema reads it: the first of a repeated parameter counts. */
export function queryObject(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of params) if (!(k in out)) out[k] = v;
  return out;
}
