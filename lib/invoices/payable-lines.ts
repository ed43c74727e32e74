import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";
import { currencyDecimals, minorUnitMicros, roundToMinorUnit } from "@/lib/money/currency-decimals";
import { formatMicros } from "@/lib/money/micros";
import type { NewLine } from "./insert-document";
import type { UsageLine } from "@/lib/calls/period-usage";

// Documents are payable amounts (docs/contract.md §10): usage lines per direction and destination name, each the exact
// sum of its calls' prices rounded half-up to the currency's minor unit; the subtotal is the document's exact usage
// plus the remainder the group's previous document carried, rounded once the same way; a rounding line makes up the
// difference between the subtotal and its usage lines, and the new sub-minor-unit remainder goes to the group's next
// document. So the subtotals of a group's documents + the last one's remainder = the prices of the calls, to the micro.

const UNRATED = "Unrated calls";

/** A usage line's destination: the rate deck's description of its prefix, else the prefix; "Unrated calls" without. */
export function destinationName(line: Pick<UsageLine, "prefix" | "rateDescription">): string {
  if (line.prefix === null) return UNRATED;
  return line.rateDescription ?? `Prefix ${line.prefix}`;
}

/** A usage line of a document, before rounding: the exact sum of prices of one direction and destination name. */
export interface ExactUsage {
  direction: "inbound" | "outbound";
  /** The prefix when one makes the line; null for several prefixes and for unrated calls. */
  prefix: string | null;
  description: string;
  calls: number;
  billedSeconds: number;
  exactMicros: bigint;
}

/** The key a note compares lines by: direction and destination name. */
export const usageKey = (l: { direction: string | null; description: string }) =>
  `${l.direction}\u0000${l.description}`;

/**
 * The per-prefix usage grouped by direction and destination name (a month of a deck with one prefix per city code
 * would make a line per prefix; the per-prefix detail is in the period's calls CSV). Ordered by direction, then name,
 * unrated calls last.
 */
export function groupUsage(lines: readonly UsageLine[]): ExactUsage[] {
  const groups = new Map<string, ExactUsage & { prefixes: Set<string | null> }>();
  for (const l of lines) {
    const description = destinationName(l);
    const key = usageKey({ direction: l.direction, description });
    const g = groups.get(key) ?? {
      direction: l.direction,
      prefix: null,
      description,
      calls: 0,
      billedSeconds: 0,
      exactMicros: 0n,
      prefixes: new Set<string | null>(),
    };
    g.calls += l.calls;
    g.billedSeconds += l.billedSeconds;
    g.exactMicros += l.amountMicros;
    g.prefixes.add(l.prefix);
    groups.set(key, g);
  }
  // By code unit, not locale: a document's line order must not depend on the server's ICU data.
  const order = (g: ExactUsage) => `${g.direction}\u0000${g.description === UNRATED ? 1 : 0}\u0000${g.description}`;
  return [...groups.values()]
    .map(({ prefixes, ...g }) => ({ ...g, prefix: prefixes.size === 1 ? [...prefixes][0] : null }))
    .sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

/** A usage line of a document: its exact sum rounded to the minor unit. */
export function roundedUsageLine(u: ExactUsage, currency: string): NewLine {
  return {
    kind: "usage",
    direction: u.direction,
    prefix: u.prefix,
    description: u.description,
    calls: u.calls,
    billedSeconds: u.billedSeconds,
    amountMicros: roundToMinorUnit(u.exactMicros, currency),
    exactMicros: u.exactMicros,
    occurredAt: null,
  };
}

/** The remainder the group's last document carries, and that document's number. */
export interface Carried {
  micros: bigint;
  from: string | null;
}

const NOTHING_CARRIED: Carried = { micros: 0n, from: null };

/**
 * Each group's last document (in issue order) and the remainder it carried; a group without one carries nothing.
 * Under the groups' locks.
 */
export async function readCarried(tx: Executor, groupIds: readonly string[]): Promise<Map<string, Carried>> {
  const out = new Map<string, Carried>(groupIds.map((g) => [g, NOTHING_CARRIED]));
  if (groupIds.length === 0) return out;
  const rows = await queryRows<{ g: string; r: string; number: string }>(
    tx,
    sql`SELECT DISTINCT ON (billing_group_id) billing_group_id AS g, remainder_micros::text AS r, number
        FROM invoices WHERE billing_group_id = ANY(string_to_array(${groupIds.join(",")}, ','))
        ORDER BY billing_group_id, issued_at DESC, seq DESC`,
  );
  for (const r of rows) out.set(r.g, { micros: BigInt(r.r), from: r.number });
  return out;
}

/**
 * The document's subtotal from its usage lines (already rounded, `exactMicros` their exact sum) and the remainder
 * carried in: round(exact + carried), a rounding line for what the usage lines do not make (absent when nothing is
 * rounded or carried), and the remainder carried out.
 */
export function withRounding(
  usage: readonly NewLine[],
  exactMicros: bigint,
  carried: Carried,
  currency: string,
): { lines: NewLine[]; subtotalMicros: bigint; remainderMicros: bigint } {
  const owed = exactMicros + carried.micros;
  const subtotal = roundToMinorUnit(owed, currency);
  const remainder = owed - subtotal;
  const lineSum = usage.reduce((s, l) => s + l.amountMicros, 0n);
  const lines = [...usage];
  if (carried.micros !== 0n || remainder !== 0n || subtotal !== lineSum) {
    const unit = formatMicros(minorUnitMicros(currency), currencyDecimals(currency));
    const parts = [
      carried.micros !== 0n && `${formatMicros(carried.micros)} ${currency} brought forward from ${carried.from}`,
      remainder !== 0n && `${formatMicros(remainder)} ${currency} carried forward`,
    ].filter(Boolean);
    lines.push({
      kind: "rounding",
      direction: null,
      prefix: null,
      description: `Rounding to ${unit} ${currency}${parts.length > 0 ? ` (${parts.join("; ")})` : ""}`,
      calls: 0,
      billedSeconds: 0,
      amountMicros: subtotal - lineSum,
      exactMicros: carried.micros - remainder,
      occurredAt: null,
    });
  }
  return { lines, subtotalMicros: subtotal, remainderMicros: remainder };
}
