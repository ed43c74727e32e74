/** Destinations that hit a card: each prefix followed by digits, up to 12 digits. */
export function destinationsFor(prefixes: string[], count: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const p = prefixes[(i * 104_729) % prefixes.length];
    const tail = String((i * 2_654_435_761) % 1e12).padStart(12, "0");
    out.push(p + tail.slice(0, Math.max(1, 12 - p.length)));
  }
  return out;
}
