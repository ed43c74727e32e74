// Measures PrefixIndex build and lookup speed (the index alone; bench/rate-lookup.ts measures the whole card): `npx tsx bench/prefix-table.ts [prefixes] [lookups]`.
// Not a test: timings depend on the machine. Targets: build 500k prefixes < 1 s, >= 2M lookups/s.
import os from "node:os";
import { Prng } from "@/lib/random/prng";
import { PrefixIndex } from "@/lib/rating/prefix-table";
import { generatePrefixes } from "./prefixes";

const prefixCount = Number(process.argv[2] ?? 500_000);
const lookupCount = Number(process.argv[3] ?? 5_000_000);

// The deck of the other rate benches (generatePrefixes), destinations from the one seeded PRNG.
const list = generatePrefixes(prefixCount, 1);
const countries = [...new Set(list.map((p) => p.slice(0, 1 + (Number(p[0]) % 3))))];
const rng = new Prng(7);
const destinations = Array.from({ length: 100_000 }, () => {
  const p = rng.pick(list);
  return rng.int(0, 3) === 0 ? `+${rng.pick(countries)}${rng.digits(10)}` : p + rng.digits(12 - Math.min(p.length, 11));
});

// CPU time as well as wall time: on a shared machine wall time mostly measures the neighbours.
const cpuMs = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};
let cpu0 = process.cpuUsage();
let t0 = performance.now();
const table = new PrefixIndex(list.length);
for (let i = 0; i < list.length; i++) table.add(list[i]);
const buildMs = performance.now() - t0;
const buildCpuMs = cpuMs(cpu0);

let hits = 0;
for (let i = 0; i < 200_000; i++) if (table.find(destinations[i % destinations.length]) >= 0) hits++; // warm-up
hits = 0;
cpu0 = process.cpuUsage();
t0 = performance.now();
for (let i = 0; i < lookupCount; i++) if (table.find(destinations[i % destinations.length]) >= 0) hits++;
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
