// Ingest throughput: `npx tsx bench/ingest-throughput.ts [pglite|pglite-dir|postgres] [calls] [batchSize] [concurrency]
// [tiers]`. tiers 3: the calls' groups are customers under a reseller under a root reseller (issue 32), each call
// rated and debited at three tiers; 1 (default): root groups.
// pglite: in memory (as the tests); pglite-dir: a data directory on disk (as the server runs).
// Not a test (timings depend on the machine). Target: >= 10 000 calls/s batched, on both engines.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { createBillingGroup } from "@/lib/billing/groups";
import { openDatabase } from "@/lib/db/client";
import { importBuyRates, importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { createSupplier } from "@/lib/rating/suppliers";
import { openTestDb, type Engine } from "@/lib/testing/engines";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { nativeCdrSchema, type NativeCdr } from "@/lib/ingest/schemas";
import { runConcurrentBatches } from "@/lib/ingest/testing/concurrent-batches";

async function main() {
  const mode = process.argv[2] ?? "pglite";
  const total = Number(process.argv[3] ?? 50_000);
  const batchSize = Number(process.argv[4] ?? 1000);
  const concurrency = Number(process.argv[5] ?? (mode === "postgres" ? 4 : 1));
  const tiers = Number(process.argv[6] ?? 1);
  const dir = mode === "pglite-dir" ? fs.mkdtempSync(path.join(os.tmpdir(), "ingest-bench-")) : null;
  const handle = dir ? await openDatabase({ dir, role: "cli" }) : await openTestDb(mode as Engine);
  try {
    let deck = "prefix,rate,increment\n";
    for (let p = 0; p < 20_000; p++) deck += `${44_000 + p},0.0${(p % 90) + 10},60/60\n`;
    // The resellers above the groups (tiers - 1 of them, the root first), each with the deck.
    let parentId: string | undefined;
    for (let t = 1; t < tiers; t++) {
      const r = await createBillingGroup(handle.db, {
        name: `R${t}`,
        currency: "USD",
        openingBalanceMicros: 10n ** 12n,
        parentId,
      });
      await importSellRates(handle.db, r.id, parseRateCsv(deck));
      parentId = r.id;
    }
    const groups = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        createBillingGroup(handle.db, { name: `G${i}`, currency: "USD", openingBalanceMicros: 10n ** 12n, parentId }),
      ),
    );
    for (const g of groups) await importSellRates(handle.db, g.id, parseRateCsv(deck));
    const supplier = await createSupplier(handle.db, { name: "S", gatewayName: "gw" });
    await importBuyRates(handle.db, supplier.id, parseRateCsv(deck));

    const start = Date.parse("2025-06-01T00:00:00Z");
    const cdrs: NativeCdr[] = Array.from({ length: total }, (_, i) =>
      nativeCdrSchema.parse({
        uuid: `bench-${i}-${start}`,
        direction: "outbound",
        from: "4930000000",
        to: `${44_000 + (i % 20_000)}123456`,
        startTime: new Date(start + i * 10).toISOString(),
        answerTime: new Date(start + i * 10 + 3000).toISOString(),
        endTime: new Date(start + i * 10 + 3000 + ((i * 7919) % 600_000)).toISOString(),
        billingGroupId: groups[i % groups.length].id,
        gateway: "gw",
        hangupCause: "NORMAL_CLEARING",
        q850Cause: 16,
        readCodec: "PCMA",
        writeCodec: "PCMA",
      }),
    );
    // BENCH_WITHOUT_TRGM=1: measure what the trigram index on calls.to_number costs the ingest.
    if (process.env.BENCH_WITHOUT_TRGM === "1") await handle.db.execute(sql`DROP INDEX calls_to_trgm_idx`);
    // Warm the rate-card cache and the JIT so the timing measures steady state.
    await ingestCdrs(handle.db, cdrs.slice(0, 100));
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const counts = await runConcurrentBatches(cdrs.slice(100), batchSize, concurrency, 1, (batch) =>
      ingestCdrs(handle.db, batch),
    );
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    const t1 = performance.now();
    const replay = await runConcurrentBatches(cdrs.slice(100), batchSize, concurrency, 2, (batch) =>
      ingestCdrs(handle.db, batch),
    );
    const replaySeconds = (performance.now() - t1) / 1000;
    console.log(
      JSON.stringify({
        engine: mode,
        tiers,
        calls: counts.created,
        batchSize,
        concurrency,
        seconds: Math.round(seconds * 100) / 100,
        callsPerSecond: Math.round(counts.created / seconds),
        // This process's CPU only: the whole work on PGlite (in-process), the client side on PostgreSQL.
        callsPerCpuSecond: Math.round(counts.created / cpuSeconds),
        loadAverage: Math.round(os.loadavg()[0] * 10) / 10,
        replayDuplicates: replay.duplicate,
        replayCallsPerSecond: Math.round(replay.duplicate / replaySeconds),
      }),
    );
  } finally {
    await handle.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
