// Measures PrefixTable build and lookup speed: `npx tsx lib/rating/bench/prefix-table-bench.ts [prefixes] [lookups]`.
// Not a test: timings depend on the machine. Targets: build 500k prefixes < 1 s, >= 2M lookups/s.
import os from "node:os";
import { PrefixTable } from "../prefix-table";

const prefixCount = Number(process.argv[2] ?? 500_000);
const lookupCount = Number(process.argv[3] ?? 5_000_000);

// Deterministic pseudo-random digits (xorshift), shaped like a real deck: country code + 2..8 more digits.
let seed = 2463534242;
function rand(n: number): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) % n;
}
function digits(n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += String(rand(10));
  return s;
}
const countries = Array.from({ length: 200 }, () => String(1 + rand(999)));
const prefixes = new Set<string>();
while (prefixes.size < prefixCount) prefixes.add(countries[rand(countries.length)] + digits(2 + rand(7)));
const list = [...prefixes];
const destinations = Array.from({ length: 100_000 }, () => {
  const p = list[rand(list.length)];
  return rand(4) === 0 ? `+${countries[rand(countries.length)]}${digits(10)}` : p + digits(12 - Math.min(p.length, 11));
});

// CPU time as well as wall time: on a shared machine wall time mostly measures the neighbours.
const cpuMs = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};
let cpu0 = process.cpuUsage();
let t0 = performance.now();
const table = new PrefixTable<number>(list.length);
for (let i = 0; i < list.length; i++) table.add(list[i], i);
const buildMs = performance.now() - t0;
const buildCpuMs = cpuMs(cpu0);

let hits = 0;
for (let i = 0; i < 200_000; i++) if (table.match(destinations[i % destinations.length])) hits++; // warm-up
hits = 0;
cpu0 = process.cpuUsage();
t0 = performance.now();
for (let i = 0; i < lookupCount; i++) if (table.match(destinations[i % destinations.length])) hits++;
const lookupMs = performance.now() - t0;
const lookupCpuMs = cpuMs(cpu0);

console.log(
  JSON.stringify({
    prefixes: table.size,
    buildMs: Math.round(buildMs),
    buildCpuMs: Math.round(buildCpuMs),
    lookups: lookupCount,
    lookupMs: Math.round(lookupMs),
    lookupsPerSecond: Math.round(lookupCount / (lookupMs / 1000)),
    lookupsPerCpuSecond: Math.round(lookupCount / (lookupCpuMs / 1000)),
    loadAverage: Math.round(os.loadavg()[0] * 10) / 10,
    hitRate: Math.round((hits / lookupCount) * 1000) / 1000,
    heapMB: Math.round(process.memoryUsage().heapUsed / 1e6),
  }),
);
