// Child process of the concurrency test: ingests a slice of a CDR file against DATABASE_URL in
// concurrent batches, then prints {"created":n,"duplicate":n} on stdout.
// usage: tsx lib/ingest/testing/ingest-worker.ts <url> <file.json> <start> <end> <batchSize> <concurrency> <seed>
import fs from "node:fs";
import { openDatabase } from "@/lib/db/client";
import { ingestCdrs } from "../ingest-cdrs";
import type { NativeCdr } from "../schemas";
import { runConcurrentBatches } from "./concurrent-batches";

async function main() {
  const [url, file, start, end, batchSize, concurrency, seed] = process.argv.slice(2);
  const cdrs = (JSON.parse(fs.readFileSync(file, "utf8")) as NativeCdr[]).slice(Number(start), Number(end));
  const handle = await openDatabase({ url });
  try {
    const counts = await runConcurrentBatches(cdrs, Number(batchSize), Number(concurrency), Number(seed), (batch) =>
      ingestCdrs(handle.db, batch),
    );
    process.stdout.write(`${JSON.stringify(counts)}\n`);
  } finally {
    await handle.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${String((e as Error)?.stack ?? e)}\n`);
  process.exit(1);
});
