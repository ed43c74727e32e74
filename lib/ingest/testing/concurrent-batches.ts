import type { IngestOutcome } from "../ingest-cdrs";
import type { NativeCdr } from "../schemas";

/** Deterministic shuffle (mulberry32), so a failing run can be replayed with its seed. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  let s = seed >>> 0;
  const rand = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Sends the CDRs in shuffled batches, `concurrency` batches in flight; counts the outcomes. */
export async function runConcurrentBatches(
  cdrs: readonly NativeCdr[],
  batchSize: number,
  concurrency: number,
  seed: number,
  ingest: (batch: NativeCdr[]) => Promise<IngestOutcome[]>,
): Promise<{ created: number; duplicate: number }> {
  const order = shuffled(cdrs, seed);
  const batches: NativeCdr[][] = [];
  for (let i = 0; i < order.length; i += batchSize) batches.push(order.slice(i, i + batchSize));
  const counts = { created: 0, duplicate: 0 };
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < batches.length) {
        const batch = batches[next++];
        for (const o of await ingest(batch)) counts[o.status === "created" ? "created" : "duplicate"]++;
      }
    }),
  );
  return counts;
}
