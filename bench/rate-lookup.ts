// Case 4, in-process: longest-prefix lookups on a card of N prefixes, with the entry objects the
// rating module's card holds. Run in its own process with --expose-gc (bench/run.ts does) so the
// memory figure is the structure alone: `node --expose-gc --import tsx bench/rate-lookup.ts 500000`.
import { Prng } from "@/lib/demo/prng";
import { PrefixTable } from "@/lib/rating/prefix-table";
import type { Increment } from "@/lib/rating/schemas";
import { generatePrefixes } from "./prefixes";
import { destinationsFor } from "./destinations";
import { median, round } from "./stats";

interface Entry {
  rateMicros: bigint;
  increment: Increment;
  description: string | null;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function usedBytes(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

function main(): void {
  const count = Number(process.argv[2] ?? 500_000);
  const lookups = Number(process.argv[3] ?? 5_000_000);
  const runs = Number(process.argv[4] ?? 5);
  const prefixes = generatePrefixes(count, 1);
  const entries: Entry[] = prefixes.map((_, i) => ({
    rateMicros: BigInt(10_000 + (i % 90_000)),
    increment: i % 2 ? { min: 60, interval: 60 } : { min: 1, interval: 1 },
    description: null,
  }));
  // 3 in 4 destinations hit a prefix, 1 in 4 are random numbers (mostly misses), as in the rating module's own bench.
  const hits = destinationsFor(prefixes, 75_000);
  const misses = Array.from({ length: 25_000 }, (_, i) => `+${String((i * 2_654_435_761 + 12_345) % 1e12).padStart(12, "0")}`);
  const destinations = new Prng(7).shuffle([...hits, ...misses]);

  const buildMs: number[] = [];
  let table: PrefixTable<Entry> | null = null;
  let structureBytes = 0;
  for (let r = 0; r < runs; r++) {
    table = null;
    gc();
    const before = usedBytes();
    const t0 = performance.now();
    const t = new PrefixTable<Entry>(count);
    for (let i = 0; i < prefixes.length; i++) t.add(prefixes[i], entries[i]);
    buildMs.push(performance.now() - t0);
    gc();
    // The entries exist before the build (they come from the database rows): count the table only.
    // Measured on the first build: later ones may overlap a table the collector has not released yet.
    if (r === 0) structureBytes = usedBytes() - before;
    table = t;
  }

  const perRun: number[] = [];
  let found = 0;
  for (let i = 0; i < 300_000; i++) if (table!.match(destinations[i % destinations.length])) found++; // warm-up
  for (let r = 0; r < runs; r++) {
    found = 0;
    const t0 = performance.now();
    for (let i = 0; i < lookups; i++) if (table!.match(destinations[i % destinations.length])) found++;
    perRun.push(lookups / ((performance.now() - t0) / 1000));
  }
  process.stdout.write(
    `${JSON.stringify({
      prefixes: table!.size,
      buildMs: round(median(buildMs), 1),
      lookupsPerSecond: Math.round(median(perRun)),
      hitRate: round(found / lookups, 3),
      structureMiB: round(structureBytes / 2 ** 20, 1),
      runs,
      lookupsPerRun: lookups,
    })}\n`,
  );
}

main();
