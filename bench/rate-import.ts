// Rate deck import and first lookup on a big card: `npx tsx bench/rate-import.ts [pglite|postgres] [prefixes]`.
import { createBillingGroup } from "@/lib/billing/groups";
import { openTestDb, type Engine } from "@/lib/testing/engines";
import { findSellRate } from "@/lib/rating/find-rate";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";

async function main() {
  const engine = (process.argv[2] ?? "pglite") as Engine;
  const count = Number(process.argv[3] ?? 500_000);
  const handle = await openTestDb(engine);
  try {
    const group = await createBillingGroup(handle.db, { name: "Big", currency: "USD" });
    let csv = "prefix,rate,increment,description\n";
    for (let i = 0; i < count; i++) csv += `${1_000_000 + i * 7},0.0${(i % 90) + 10},60/60,Destination ${i % 1000}\n`;
    let t = performance.now();
    const rows = parseRateCsv(csv);
    const parseMs = performance.now() - t;
    t = performance.now();
    const result = await importSellRates(handle.db, group.id, rows);
    const importMs = performance.now() - t;
    t = performance.now();
    const first = await findSellRate(handle.db, group.id, "1000007123");
    const loadMs = performance.now() - t;
    t = performance.now();
    for (let i = 0; i < 1000; i++)
      await findSellRate(handle.db, group.id, `${1_000_000 + i * 7}123`, result.rateCardVersion);
    const cachedMs = (performance.now() - t) / 1000;
    console.log(
      JSON.stringify({
        engine,
        prefixes: result.imported,
        parseMs: Math.round(parseMs),
        importMs: Math.round(importMs),
        firstLookupWithCardLoadMs: Math.round(loadMs),
        cachedLookupMs: Math.round(cachedMs * 1000) / 1000,
        match: first?.prefix,
      }),
    );
  } finally {
    await handle.close();
  }
}
main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
