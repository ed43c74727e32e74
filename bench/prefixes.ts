// Deterministic rate-card prefixes shaped like a real deck: a country code of 1-3 digits followed by
// 2-8 more digits (so 3-11 digits in all), no duplicates. Same seed, same deck.
import { Prng } from "@/lib/random/prng";

export function generatePrefixes(count: number, seed: number): string[] {
  const rng = new Prng(seed);
  const countries = Array.from({ length: 200 }, () => String(rng.int(1, 999)));
  const out = new Set<string>();
  while (out.size < count) out.add(rng.pick(countries) + rng.digits(rng.int(2, 8)));
  return [...out];
}
