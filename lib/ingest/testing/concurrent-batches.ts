import { Prng } from "@/lib/random/prng";
import type { IngestOutcome } from "../ingest-cdrs";
import type { NativeCdr } from "../schemas";

/** Sends the CDRs in shuffled batches, `concurrency` batches in flight; counts the outcomes. */
export async function runConcurrentBatches(
  cdrs: readonly NativeCdr[],
  batchSize: number,
  concurrency: number,
  seed: number,
  ingest: (batch: NativeCdr[]) => Promise<IngestOutcome[]>,
): Promise<{ created: number; duplicate: number }> {
  const order = new Prng(seed).shuffle(cdrs);
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
