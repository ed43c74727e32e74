// Case 4, in-process: longest-prefix lookups on a card of N prefixes, the rating module's own card
// (lib/rating/rate-card.ts) built the way a deck loads: from the database's chunks of compact records
// (here generated, 50k rates each), every match answering the rate's terms (BigInt micros, increment,
// fees). Run in its own process with --expose-gc (bench/run.ts does) so the memory figure is the
// structure alone: `node --expose-gc --import tsx bench/rate-lookup.ts 500000`.
import { Prng } from "@/lib/random/prng";
import { RateCardBuilder, type RateColumns } from "@/lib/rating/rate-card";
import { generatePrefixes } from "./prefixes";
import { destinationsFor } from "./destinations";
import { median, round } from "./stats";

const CHUNK = 50_000;

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
  // The texts the database answers (string_agg of records, lib/rating/find-rate.ts loadCard); a tenth of
  // the rates with a connect fee.
  const chunks: string[] = [];
  for (let from = 0; from < prefixes.length; from += CHUNK) {
    const records: string[] = [];
    for (let i = from; i < Math.min(prefixes.length, from + CHUNK); i++) {
      records.push(`${prefixes[i]},${10_000 + (i % 90_000)},${i % 2 ? "60,60" : "1,1"},${i % 10 === 0 ? 5000 : ""},`);
    }
    chunks.push(records.join("\n"));
  }
  // 3 in 4 destinations hit a prefix, 1 in 4 are random numbers (mostly misses), as in the rating module's own bench.
  const hits = destinationsFor(prefixes, 75_000);
  const misses = Array.from(
    { length: 25_000 },
    (_, i) => `+${String((i * 2_654_435_761 + 12_345) % 1e12).padStart(12, "0")}`,
  );
  const destinations = new Prng(7).shuffle([...hits, ...misses]);

  // CPU time beside wall time: on a shared machine wall time mostly measures the neighbours.
  const cpuMs = (since: NodeJS.CpuUsage) => {
    const u = process.cpuUsage(since);
    return (u.user + u.system) / 1000;
  };
  const buildMs: number[] = [];
  const buildCpuMs: number[] = [];
  let table: RateColumns | null = null;
  let structureBytes = 0;
  for (let r = 0; r < runs; r++) {
    table = null;
    gc();
    const before = usedBytes();
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const builder = new RateCardBuilder(count);
    for (const chunk of chunks) builder.addRecords(chunk, null);
    const t = builder.build();
    buildMs.push(performance.now() - t0);
    buildCpuMs.push(cpuMs(cpu0));
    gc();
    // The chunk texts exist before the build (the database answers them): count the card only.
    // Measured on the first build: later ones may overlap a table the collector has not released yet.
    if (r === 0) structureBytes = usedBytes() - before;
    table = t;
  }

  const perRun: number[] = [];
  const perCpuRun: number[] = [];
  let found = 0;
  for (let i = 0; i < 300_000; i++) if (table!.match(destinations[i % destinations.length])) found++; // warm-up
  for (let r = 0; r < runs; r++) {
    found = 0;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < lookups; i++) if (table!.match(destinations[i % destinations.length])) found++;
    perRun.push(lookups / ((performance.now() - t0) / 1000));
    perCpuRun.push(lookups / (cpuMs(cpu0) / 1000));
  }
  process.stdout.write(
    `${JSON.stringify({
      prefixes: table!.size,
      buildMs: round(median(buildMs), 1),
      buildCpuMs: round(median(buildCpuMs), 1),
      lookupsPerSecond: Math.round(median(perRun)),
      lookupsPerCpuSecond: Math.round(median(perCpuRun)),
      hitRate: round(found / lookups, 3),
      structureMiB: round(structureBytes / 2 ** 20, 1),
      runs,
      lookupsPerRun: lookups,
    })}\n`,
  );
}

main();
