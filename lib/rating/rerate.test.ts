import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { runAdminCommand } from "@/lib/admin/commands";
import { createBillingGroup, getBillingGroup, type BillingGroup } from "@/lib/billing/groups";
import { queryRows } from "@/lib/db/client";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { nativeCdrSchema } from "@/lib/ingest/schemas";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { importSellRates } from "./import-rates";
import { parseRateCsv } from "./rate-csv";
import { rerateCalls, RerateIncompleteError } from "./rerate";

const OPENING = 1_000_000_000n;
const FIRST_START = Date.parse("2025-11-01T00:00:00Z");
const SINCE = new Date("2025-11-05T00:00:00Z");

/** One deck of a group: a single prefix, whose 60 s answered call costs `price` micros. */
interface Deck {
  from: number;
  csv: string;
  price: bigint;
}

describeOnEngines("rerate --since over partitions", (handle) => {
  const db = () => handle().db;
  const rows = <T>(q: ReturnType<typeof sql>) => queryRows<T>(db(), q);
  const ledgerSum = async (g: string) =>
    BigInt(
      (
        await rows<{ s: string }>(
          sql`SELECT COALESCE(SUM(amount_micros), 0)::text AS s FROM ledger_entries WHERE billing_group_id = ${g}`,
        )
      )[0].s,
    );

  /** Every call of the group with the price of the deck in force at its start (the newest with from <= start). */
  async function expectPricedBy(group: BillingGroup, decks: Deck[]) {
    const calls = await rows<{ start_ms: string; price: string }>(
      sql`SELECT (extract(epoch FROM start_time) * 1000)::bigint::text AS start_ms, price_micros::text AS price
          FROM calls WHERE billing_group_id = ${group.id}`,
    );
    const expected = (startMs: number) =>
      decks
        .filter((d) => d.from <= startMs)
        .at(-1)!
        .price.toString();
    const wrong = calls.filter((c) => c.price !== expected(Number(c.start_ms)));
    expect(wrong.length, `${group.name}: calls not on the deck in force at their start`).toBe(0);
    // Balance = opening - every price (the debits plus each adjustment), and the ledger says the same.
    const charged = calls.reduce((sum, c) => sum + BigInt(c.price), 0n);
    expect((await getBillingGroup(db(), group.id))!.balanceMicros).toBe(OPENING - charged);
    expect(await ledgerSum(group.id)).toBe(OPENING - charged);
    // The usage rollups moved with the updates (every partition, the default one too).
    const [rolled] = await rows<{ p: string | null }>(
      sql`SELECT SUM(price_micros)::text AS p FROM usage_daily WHERE billing_group_id = ${group.id}`,
    );
    expect(rolled.p).toBe(charged.toString());
    return calls.length;
  }

  it("re-rates every call since the instant, across monthly partitions and the default one, several groups and batches, with exact balances", async () => {
    // Three groups, each with its own deck; 60 s answered calls round-robin, one every 1 700 s from 2025-11-01 to
    // mid-January, ingested in batches of 1 000 as a switch would post them.
    const groups: { group: BillingGroup; to: string; decks: Deck[] }[] = [];
    for (const [name, to, csv, price] of [
      ["G1", "15551234567", "1,0.0100,1/1", 10_000n],
      ["G2", "4930999999", "49,0.0300,60/60", 30_000n],
      ["G3", "442071234567", "44,0.0200,30/6", 20_000n],
    ] as const) {
      const group = await createBillingGroup(db(), { name, currency: "EUR", openingBalanceMicros: OPENING });
      await importSellRates(db(), group.id, parseRateCsv(`prefix,rate,increment\n${csv}\n`));
      groups.push({ group, to, decks: [{ from: 0, csv, price }] });
    }
    const cdrs = Array.from({ length: 3600 }, (_, i) => {
      const { group, to } = groups[i % groups.length];
      const start = FIRST_START + i * 1_700_000;
      return nativeCdrSchema.parse({
        uuid: `rerate-${i}`,
        direction: "outbound",
        from: "4930123456",
        to,
        billingGroupId: group.id,
        startTime: new Date(start).toISOString(),
        answerTime: new Date(start).toISOString(),
        endTime: new Date(start + 60_000).toISOString(),
      });
    });
    for (let i = 0; i < cdrs.length; i += 1000) await ingestCdrs(db(), cdrs.slice(i, i + 1000));
    // January's calls in the default partition, as when their month had no partition yet: moved by hand, below the
    // parent (its rollup triggers do not fire, the rollups already count these calls).
    await db().execute(sql`ALTER TABLE calls DETACH PARTITION calls_p202601`);
    await db().execute(sql`INSERT INTO calls_default SELECT * FROM calls_p202601`);
    await db().execute(sql`DROP TABLE calls_p202601`);
    const parts = await rows<{ part: string; n: number }>(
      sql`SELECT tableoid::regclass::text AS part, count(*)::int AS n FROM calls GROUP BY 1 ORDER BY 1`,
    );
    expect(parts.map((p) => p.part)).toEqual(["calls_default", "calls_p202511", "calls_p202512"]);
    expect(parts.every((p) => p.n > 400)).toBe(true);

    // New decks: G2 from the instant re-rated from, G3 from mid-December; G1 unchanged.
    const addDeck = async (i: number, csv: string, from: string, price: bigint) => {
      const effectiveFrom = new Date(from);
      await importSellRates(db(), groups[i].group.id, parseRateCsv(`prefix,rate,increment\n${csv}\n`), undefined, {
        effectiveFrom,
      });
      groups[i].decks.push({ from: effectiveFrom.getTime(), csv, price });
    };
    await addDeck(1, "49,0.0310,60/60", "2025-11-05T00:00:00Z", 31_000n);
    await addDeck(2, "44,0.0250,30/6", "2025-12-15T00:00:00Z", 25_000n);
    const inScope = cdrs.filter((c) => Date.parse(c.startTime) >= SINCE.getTime()).length;
    const changed = (i: number) =>
      cdrs.filter((c, n) => n % 3 === i && Date.parse(c.startTime) >= groups[i].decks.at(-1)!.from).length;
    expect(inScope).toBeGreaterThan(2 * 1000); // more than two batches

    const result = await rerateCalls(db(), { since: SINCE });
    expect(result).toMatchObject({
      examined: inScope,
      rated: 0,
      rerated: changed(1) + changed(2),
      adjustedMicros: BigInt(changed(1)) * 1_000n + BigInt(changed(2)) * 5_000n,
      unmatched: 0,
    });
    for (const g of groups) await expectPricedBy(g.group, g.decks);

    // A second run finds nothing left to change.
    expect(await rerateCalls(db(), { since: SINCE })).toMatchObject({
      examined: inScope,
      rerated: 0,
      adjustedMicros: 0n,
    });

    // --group: only that group's calls, all of them, in batches; the others stay as they are.
    await addDeck(0, "1,0.0120,1/1", "2025-11-20T00:00:00Z", 12_000n);
    const cli = await runAdminCommand(db(), ["rerate", "--group", groups[0].group.id, "--since", "2025-11-05"]);
    expect(cli).toMatchObject({
      billingGroupId: groups[0].group.id,
      examined: cdrs.filter((c, n) => n % 3 === 0 && Date.parse(c.startTime) >= SINCE.getTime()).length,
      rerated: changed(0),
      adjusted: (changed(0) * 0.002).toFixed(6).replace(/0+$/, ""),
    });
    for (const g of groups) await expectPricedBy(g.group, g.decks);
  }, 120_000);

  it("fails, never reports success, when calls in scope were not all examined", async () => {
    const group = await createBillingGroup(db(), { name: "Gone", currency: "EUR", openingBalanceMicros: OPENING });
    await importSellRates(db(), group.id, parseRateCsv("prefix,rate,increment\n44,0.0200,1/1\n"));
    await ingestCdrs(
      db(),
      Array.from({ length: 30 }, (_, i) =>
        nativeCdrSchema.parse({
          uuid: `gone-${i}`,
          direction: "outbound",
          from: "4930123456",
          to: "442071234567",
          billingGroupId: group.id,
          startTime: new Date(FIRST_START + i * 60_000).toISOString(),
          answerTime: new Date(FIRST_START + i * 60_000).toISOString(),
          endTime: new Date(FIRST_START + i * 60_000 + 60_000).toISOString(),
        }),
      ),
    );
    await importSellRates(db(), group.id, parseRateCsv("prefix,rate,increment\n44,0.0300,1/1\n"), undefined, {
      effectiveFrom: new Date(FIRST_START),
    });
    // The last call disappears in the first batch's transaction (deleted by hand, by a trigger on its ledger entries):
    // it was in scope when the run began and is never looked at.
    const last = new Date(FIRST_START + 29 * 60_000).toISOString();
    await db().execute(
      sql.raw(`CREATE FUNCTION test_delete_last_call() RETURNS trigger LANGUAGE plpgsql AS $$
               BEGIN DELETE FROM calls WHERE billing_group_id = '${group.id}' AND start_time = '${last}'; RETURN NULL; END $$`),
    );
    await db().execute(
      sql`CREATE TRIGGER test_delete_last_call AFTER INSERT ON ledger_entries FOR EACH STATEMENT EXECUTE FUNCTION test_delete_last_call()`,
    );
    const run = rerateCalls(db(), { billingGroupId: group.id, since: new Date(FIRST_START), batchSize: 10 });
    await expect(run).rejects.toBeInstanceOf(RerateIncompleteError);
    await expect(run).rejects.toThrow(/1 of the 30 calls in scope were not re-rated/);
    await db().execute(sql`DROP TRIGGER test_delete_last_call ON ledger_entries`);
  });
});
