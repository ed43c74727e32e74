// The longest call a balance allows, exactly (bigint money, integer seconds). Pure: no database.

/**
 * Largest `d` in 1..cap such that a call the switch cuts at `d` seconds cannot cost more than `available`.
 * Ingest rounds the answered time UP to the whole second, so a call cut at d (d.2 s measured) bills as d + 1:
 * the condition is price(d + 1) <= available, and that price is what the authorization reserves.
 * `price` is the rating's own price of an answered duration (increments, fees): monotone in the seconds.
 * 0 when not even one second is affordable.
 */
export function maxAffordableSeconds(
  price: (answeredSeconds: number) => bigint,
  available: bigint,
  cap: number,
): number {
  if (!Number.isInteger(cap) || cap < 1) throw new RangeError("cap must be a positive integer");
  if (available < 0n || price(2) > available) return 0;
  if (price(cap + 1) <= available) return cap;
  // Invariant: price(lo + 1) <= available < price(hi + 1).
  let lo = 1;
  let hi = cap;
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (price(mid + 1) <= available) lo = mid;
    else hi = mid;
  }
  return lo;
}
