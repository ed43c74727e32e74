import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBillingGroup, getBillingGroup } from "@/lib/billing/groups";
import { openDatabase, queryRows, type DbHandle } from "@/lib/db/client";
import { chargeMicros } from "@/lib/money/charge";
import { billableSeconds } from "@/lib/rating/billing-math";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { createTestDatabase } from "@/lib/testing/engines";
import { ingestCdrs } from "./ingest-cdrs";
import { nativeCdrSchema, type NativeCdr } from "./schemas";
import { runConcurrentBatches } from "./testing/concurrent-batches";

const run = promisify(execFile);
const CALLS = 1000;
const OPENING = 1_000_000_000n; // 1000 units
const DECK = "prefix,rate,increment\n44,0.0213,1/1\n4420,0.0120,60/60\n49,0.033333,30/6\n1,0.007,6/6\n";
const RATES: Record<string, { rate: bigint; min: number; interval: number }> = {
  "4420": { rate: 12_000n, min: 60, interval: 60 },
  "44": { rate: 21_300n, min: 1, interval: 1 },
  "49": { rate: 33_333n, min: 30, interval: 6 },
  "1": { rate: 7_000n, min: 6, interval: 6 },
};

// Several processes posting the same calls at once against one PostgreSQL: the balance must move
// by exactly the sum of the prices, once per call, however the work interleaves.
describe("concurrent ingest on PostgreSQL (several connections and processes)", () => {
  let handle: DbHandle;
  let url: string;
  let drop: () => Promise<void>;
  let groupId: string;
  let file: string;
  let cdrs: NativeCdr[];
  let expectedTotal = 0n;

  beforeAll(async () => {
    ({ url, drop } = await createTestDatabase());
    handle = await openDatabase({ url });
    const group = await createBillingGroup(handle.db, { name: "Busy", currency: "USD", openingBalanceMicros: OPENING });
    groupId = group.id;
    await importSellRates(handle.db, groupId, parseRateCsv(DECK));
    const destinations = ["442071234567", "441611234567", "4915112345678", "12125551234"];
    const start = Date.parse("2025-05-01T00:00:00Z");
    cdrs = Array.from({ length: CALLS }, (_, i) => {
      const answeredMs = 1 + ((i * 7919) % 3_600_000); // 1 ms .. 1 h, fractional seconds included: every call costs something
      const to = destinations[i % destinations.length];
      return nativeCdrSchema.parse({
        uuid: `conc-${i.toString().padStart(4, "0")}-${process.pid}`,
        direction: "outbound",
        from: "4930000000",
        to,
        startTime: new Date(start + i * 1000).toISOString(),
        answerTime: new Date(start + i * 1000 + 2000).toISOString(),
        endTime: new Date(start + i * 1000 + 2000 + answeredMs).toISOString(),
        billingGroupId: groupId,
      });
    });
    // Expected prices from the docs/contract.md §1 formula, computed independently of the ingest path.
    for (const c of cdrs) {
      const prefix = ["4420", "44", "49", "1"].find((p) => c.to.startsWith(p))!;
      const r = RATES[prefix];
      const answered = Math.ceil((Date.parse(c.endTime) - Date.parse(c.answerTime!)) / 1000);
      expectedTotal += chargeMicros(r.rate, billableSeconds(answered, { min: r.min, interval: r.interval }));
    }
    file = path.join(os.tmpdir(), `cdrs-${process.pid}-${Date.now()}.json`);
    fs.writeFileSync(file, JSON.stringify(cdrs));
  });

  afterAll(async () => {
    await handle?.close();
    await drop?.();
    if (file) fs.rmSync(file, { force: true });
  });

  /** Every sender covers an overlapping slice, so most uuids are in flight twice at the same time. */
  async function sendEverythingConcurrently(seed: number) {
    const worker = (start: number, end: number, s: number) =>
      run(
        process.execPath,
        [
          "--import",
          "tsx",
          "lib/ingest/testing/ingest-worker.ts",
          url,
          file,
          String(start),
          String(end),
          "25",
          "4",
          String(s),
        ],
        {
          cwd: process.cwd(),
          timeout: 120_000,
        },
      ).then(({ stdout }) => JSON.parse(stdout.trim().split("\n").pop()!) as { created: number; duplicate: number });
    const inProcess = runConcurrentBatches(cdrs.slice(0, 600), 20, 6, seed, (batch) => ingestCdrs(handle.db, batch));
    const results = await Promise.all([
      inProcess,
      worker(300, 1000, seed + 1),
      worker(0, 400, seed + 2),
      worker(500, 1000, seed + 3),
    ]);
    return results.reduce((a, b) => ({ created: a.created + b.created, duplicate: a.duplicate + b.duplicate }));
  }

  async function state() {
    const [calls] = await queryRows<{ n: bigint; total: bigint }>(
      handle.db,
      sql`SELECT count(*)::bigint AS n, COALESCE(SUM(price_micros), 0)::bigint AS total FROM calls WHERE billing_group_id = ${groupId}`,
    );
    const [ledger] = await queryRows<{ n: bigint; total: bigint }>(
      handle.db,
      sql`SELECT count(*)::bigint AS n, COALESCE(SUM(amount_micros), 0)::bigint AS total FROM ledger_entries WHERE billing_group_id = ${groupId} AND kind = 'debit'`,
    );
    const balance = (await getBillingGroup(handle.db, groupId))!.balanceMicros;
    return {
      calls: Number(calls.n),
      pricesMicros: BigInt(calls.total),
      debits: Number(ledger.n),
      debitedMicros: -BigInt(ledger.total),
      balance,
    };
  }

  it("debits each of 1000 calls exactly once, and 3 concurrent replays change nothing", async () => {
    const first = await sendEverythingConcurrently(1);
    expect(first.created).toBe(CALLS); // each call reported created exactly once across all senders
    const after = await state();
    expect(after).toEqual({
      calls: CALLS,
      pricesMicros: expectedTotal,
      debits: CALLS,
      debitedMicros: expectedTotal,
      balance: OPENING - expectedTotal,
    });

    const replays = await Promise.all([
      sendEverythingConcurrently(11),
      sendEverythingConcurrently(22),
      sendEverythingConcurrently(33),
    ]);
    for (const r of replays) expect(r.created).toBe(0);
    expect(await state()).toEqual(after);
  });
});
