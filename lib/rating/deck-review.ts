/**
 * What a person reviewing a deck reads first: the deck's effective-from in words when it is the first deck's
 * default, and the margin warnings of the rates the new deck changes apart from those it leaves as they were.
 * Pure (no database), so the portal and the domain share it.
 */

/**
 * The instant an owner's first deck takes effect when no effective-from is given (the epoch): the deck then
 * covers every call of the owner, so a person reads "since the account opened", not "1970-01-01 01:00:00".
 */
export const FIRST_DECK_FROM_MS = 0;

/** True when `iso` is the first deck's default instant (see FIRST_DECK_FROM_MS). */
export function isFromTheStart(iso: string): boolean {
  return Date.parse(iso) === FIRST_DECK_FROM_MS;
}

interface DiffRates {
  side: "sell" | "buy";
  added: { prefix: string }[];
  changed: { prefix: string }[];
}

interface WarningPrefixes {
  /** the sell prefix */
  prefix: string;
  buyPrefix: string;
}

/**
 * Whether a margin warning is about a rate the new deck adds or changes: a sell deck's own prefix, or for a buy
 * deck the supplier's prefix it matched. `touched`: the added and changed prefixes (see touchedPrefixes).
 */
export function isOnChange(side: DiffRates["side"], touched: ReadonlySet<string>, w: WarningPrefixes): boolean {
  return touched.has(side === "sell" ? w.prefix : w.buyPrefix);
}

export function touchedPrefixes(diff: Pick<DiffRates, "added" | "changed">): Set<string> {
  return new Set([...diff.added.map((r) => r.prefix), ...diff.changed.map((r) => r.prefix)]);
}

/**
 * The warnings on added or changed rates, and the warnings on rates left as they were (listed, and their count).
 * The diff lists the warnings on changes first (deck-diff), so `onChanges` is complete whenever it fits the list;
 * `othersCount` counts the unlisted too.
 */
export function splitWarnings<W extends WarningPrefixes>(
  diff: DiffRates & { marginWarnings: W[]; marginWarningCount: number },
): { onChanges: W[]; others: W[]; othersCount: number } {
  const touched = touchedPrefixes(diff);
  const onChanges: W[] = [];
  const others: W[] = [];
  for (const w of diff.marginWarnings) (isOnChange(diff.side, touched, w) ? onChanges : others).push(w);
  return { onChanges, others, othersCount: diff.marginWarningCount - onChanges.length };
}
