// Deterministic rate-card prefixes shaped like a real deck: a country code of 1-3 digits followed by
// 2-8 more digits (so 3-11 digits in all), no duplicates. Same seed, same deck.

export function xorshift(seed: number): (n: number) => number {
  let s = seed >>> 0 || 2463534242;
  return (n) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  };
}

export function generatePrefixes(count: number, seed: number): string[] {
  const rand = xorshift(2463534242 ^ (seed * 2654435761));
  const countries = Array.from({ length: 200 }, () => String(1 + rand(999)));
  const out = new Set<string>();
  while (out.size < count) {
    let p = countries[rand(countries.length)];
    const more = 2 + rand(7);
    for (let i = 0; i < more; i++) p += String(rand(10));
    out.add(p);
  }
  return [...out];
}
