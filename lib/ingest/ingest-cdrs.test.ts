import { sql } from "drizzle-orm";
import fc from "fast-check";
import { expect, it } from "vitest";
import { createBillingGroup, getBillingGroup } from "@/lib/billing/groups";
import { topUp } from "@/lib/billing/testing/top-up";
import { queryRows } from "@/lib/db/client";
import { importBuyRates, importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { createSupplier } from "@/lib/rating/suppliers";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { CdrConflictError, CdrRejectedError, ingestCdrs } from "./ingest-cdrs";
import { rerateUnratedCalls } from "@/lib/rating/rerate";
import { nativeCdrSchema, type NativeCdrInput } from "./schemas";

let seq = 0;
function cdr(overrides: Partial<NativeCdrInput> = {}) {
  seq++;
  return nativeCdrSchema.parse({
    uuid: `call-${process.pid}-${seq}-${Math.random().toString(36).slice(2)}`,
    direction: "outbound",
    from: "4930123456",
    to: "442071234567",
    startTime: "2025-03-01T10:00:00Z",
    answerTime: "2025-03-01T10:00:05Z",
    endTime: "2025-03-01T10:01:06.250Z", // 61.25 s answered -> 62 s
    ...overrides,
  });
}

describeOnEngines("ingestCdrs", (handle) => {
  async function groupWithCard(deck = "prefix,rate,increment\n44,0.02,1/1\n4420,0.0120,60/60\n", accountcode?: string) {
    const group = await createBillingGroup(handle().db, {
      name: "G",
      currency: "EUR",
      openingBalanceMicros: 10_000_000n,
      accountcode,
    });
    await importSellRates(handle().db, group.id, parseRateCsv(deck));
    return group;
  }
  const balance = async (id: string) => (await getBillingGroup(handle().db, id))!.balanceMicros;
  const ledgerSum = async (id: string) =>
    BigInt(
      (
        await queryRows<{ s: bigint }>(
          handle().db,
          sql`SELECT COALESCE(SUM(amount_micros), 0)::bigint AS s FROM ledger_entries WHERE billing_group_id = ${id}`,
        )
      )[0].s,
    );
  const callCount = async (id: string) =>
    Number(
      (
        await queryRows<{ n: bigint }>(
          handle().db,
          sql`SELECT count(*)::bigint AS n FROM calls WHERE billing_group_id = ${id}`,
        )
      )[0].n,
    );

  it("rates, stores and debits a new call; a replay is a duplicate that debits nothing", async () => {
    const group = await groupWithCard();
    const supplier = await createSupplier(handle().db, { name: "Carrier", gatewayName: `gw-${group.id}` });
    await importBuyRates(handle().db, supplier.id, parseRateCsv("prefix,rate,increment\n44,0.004,1/1\n"));
    const input = cdr({
      billingGroupId: group.id,
      gateway: `gw-${group.id}`,
      pdd: 1.5,
      q850Cause: 16,
      hangupCause: "NORMAL_CLEARING",
    });

    const [first] = await ingestCdrs(handle().db, [input]);
    expect(first.status).toBe("created");
    expect(first.call).toMatchObject({
      uuid: input.uuid,
      billingGroupId: group.id,
      currency: "EUR",
      duration: 67, // 66.25 s -> 67
      billDuration: 120, // 62 s answered on 60/60
      rated: true,
      matchedPrefix: "4420",
      sellRateMicros: 12_000n,
      incrementMin: 60,
      incrementInterval: 60,
      priceMicros: 24_000n, // 0.012 * 120 / 60
      supplierId: supplier.id,
      buyRateMicros: 4_000n,
      buyBillDuration: 62, // 1/1
      buyCostMicros: 4_133n, // 0.004 * 62 / 60 = 0.0041333 -> 0.004133
      pddMs: 1500,
      q850Cause: 16,
    });
    expect(first.call.endTime.toISOString()).toBe("2025-03-01T10:01:06.250Z");
    expect(await balance(group.id)).toBe(10_000_000n - 24_000n);

    const [again] = await ingestCdrs(handle().db, [input]);
    expect(again.status).toBe("duplicate");
    // The answer of the insert (built from the values sent) is exactly the row as stored.
    expect(again.call).toEqual(first.call);
    expect(await balance(group.id)).toBe(10_000_000n - 24_000n);
    expect(await ledgerSum(group.id)).toBe(await balance(group.id));
  });

  it("dates a debit now, or at its call's end for a history ingested at once (debitsAtCallEnd)", async () => {
    const group = await groupWithCard();
    const live = cdr({ billingGroupId: group.id });
    const history = cdr({ billingGroupId: group.id, to: "442079999999" });
    await ingestCdrs(handle().db, [live]);
    await ingestCdrs(handle().db, [history], { debitsAtCallEnd: true });
    const rows = await queryRows<{ to: string; recent: boolean; at_end: boolean }>(
      handle().db,
      sql`SELECT c.to_number AS to, l.created_at > now() - interval '1 hour' AS recent, l.created_at = c.end_time AS at_end
          FROM ledger_entries l JOIN calls c ON c.id = l.call_id
          WHERE l.billing_group_id = ${group.id} AND l.kind = 'debit' ORDER BY c.to_number`,
    );
    expect(rows).toEqual([
      { to: "442071234567", recent: true, at_end: false },
      { to: "442079999999", recent: false, at_end: true },
    ]);
  });

  it("answers a conflict for a replay with other content and changes nothing in the batch", async () => {
    const group = await groupWithCard();
    const input = cdr({ billingGroupId: group.id });
    await ingestCdrs(handle().db, [input]);
    const before = await balance(group.id);
    const fresh = cdr({ billingGroupId: group.id });
    const changed = { ...input, endTime: "2025-03-01T10:09:00Z" };
    const error = await ingestCdrs(handle().db, [fresh, changed]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CdrConflictError);
    expect(error).toMatchObject({ index: 1, uuid: input.uuid, fields: ["endTime"] });
    expect(await balance(group.id)).toBe(before);
    expect(await callCount(group.id)).toBe(1); // `fresh` was rolled back with the batch
  });

  it("stores a uuid listed twice in one batch once, and refuses two different versions of it", async () => {
    const group = await groupWithCard();
    const input = cdr({ billingGroupId: group.id });
    const outcomes = await ingestCdrs(handle().db, [input, input]);
    expect(outcomes.map((o) => o.status)).toEqual(["created", "duplicate"]);
    expect(await balance(group.id)).toBe(10_000_000n - 24_000n);
    const other = cdr({ billingGroupId: group.id });
    await expect(ingestCdrs(handle().db, [other, { ...other, to: "4420999" }])).rejects.toBeInstanceOf(
      CdrConflictError,
    );
  });

  it("keys idempotency by billing group: another group's uuid is neither a conflict nor an oracle", async () => {
    const owner = await groupWithCard();
    const other = await groupWithCard();
    const theirs = cdr({ billingGroupId: owner.id, to: "4420111", q850Cause: 16 });
    await ingestCdrs(handle().db, [theirs]);
    // A key bound to `other` posts the owner's uuid with its own content: a new call of its own group.
    const mine = cdr({ uuid: theirs.uuid, billingGroupId: other.id });
    const [created] = await ingestCdrs(handle().db, [mine], { restrictToBillingGroupId: other.id });
    expect(created).toMatchObject({
      status: "created",
      call: { uuid: theirs.uuid, billingGroupId: other.id, toNumber: mine.to },
    });
    // Its replay is compared with its own record only: a change names what differs from *its* call.
    const [replay] = await ingestCdrs(handle().db, [mine], { restrictToBillingGroupId: other.id });
    expect(replay).toMatchObject({ status: "duplicate", call: { id: created.call.id } });
    const conflict = await ingestCdrs(handle().db, [{ ...mine, to: "4420111" }], {
      restrictToBillingGroupId: other.id,
    }).catch((e: unknown) => e);
    expect(conflict).toMatchObject({ fields: ["to"] });
    // The owner's call is untouched, and the owner can still replay it.
    const [ownerReplay] = await ingestCdrs(handle().db, [theirs], { restrictToBillingGroupId: owner.id });
    expect(ownerReplay.status).toBe("duplicate");
    expect(ownerReplay.call).toMatchObject({ billingGroupId: owner.id, toNumber: "4420111" });
    expect(await callCount(owner.id)).toBe(1);
    expect(await callCount(other.id)).toBe(1);
  });

  it("lets the owner store its call after another group claimed the uuid first", async () => {
    const owner = await groupWithCard();
    const squatter = await groupWithCard();
    const uuid = `claimed-${Math.random().toString(36).slice(2)}`;
    await ingestCdrs(handle().db, [cdr({ uuid, billingGroupId: squatter.id, to: "4499" })], {
      restrictToBillingGroupId: squatter.id,
    });
    const [o] = await ingestCdrs(handle().db, [cdr({ uuid, billingGroupId: owner.id })], {
      restrictToBillingGroupId: owner.id,
    });
    expect(o).toMatchObject({ status: "created", call: { billingGroupId: owner.id, priceMicros: 24_000n } });
    expect(await balance(owner.id)).toBe(10_000_000n - 24_000n);
  });

  it("stores one uuid reported for two groups in one platform batch as two calls", async () => {
    const g1 = await groupWithCard();
    const g2 = await groupWithCard();
    const uuid = `shared-${Math.random().toString(36).slice(2)}`;
    const batch = [cdr({ uuid, billingGroupId: g1.id }), cdr({ uuid, billingGroupId: g2.id, to: "4499" })];
    const outcomes = await ingestCdrs(handle().db, batch);
    expect(outcomes.map((o) => [o.status, o.call.billingGroupId])).toEqual([
      ["created", g1.id],
      ["created", g2.id],
    ]);
    expect(outcomes[0].call.id).not.toBe(outcomes[1].call.id);
    const again = await ingestCdrs(handle().db, [...batch].reverse());
    expect(again.map((o) => [o.status, o.call.id])).toEqual([
      ["duplicate", outcomes[1].call.id],
      ["duplicate", outcomes[0].call.id],
    ]);
  });

  it("rejects a batch naming an unknown group or supplier and writes nothing", async () => {
    const group = await groupWithCard();
    const good = cdr({ billingGroupId: group.id });
    const error = await ingestCdrs(handle().db, [good, cdr({ billingGroupId: "bg_nope" })]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CdrRejectedError);
    expect(error).toMatchObject({ index: 1, field: "billingGroupId" });
    await expect(ingestCdrs(handle().db, [cdr({ accountcode: "no-such-code" })])).rejects.toMatchObject({
      index: 0,
      field: "accountcode",
    });
    await expect(
      ingestCdrs(handle().db, [cdr({ billingGroupId: group.id, supplierId: "sup_nope" })]),
    ).rejects.toMatchObject({ field: "supplierId" });
    expect(await callCount(group.id)).toBe(0);
    expect(await balance(group.id)).toBe(10_000_000n);
  });

  it("maps an accountcode to its group and stores unanswered calls free", async () => {
    const group = await groupWithCard(undefined, `ac-${Math.random()}`);
    const [o] = await ingestCdrs(handle().db, [
      cdr({ accountcode: group.accountcode, answerTime: null, hangupCause: "NO_ANSWER" }),
    ]);
    expect(o.call).toMatchObject({ billingGroupId: group.id, rated: true, billDuration: 0, priceMicros: 0n });
    expect(await ledgerSum(group.id)).toBe(10_000_000n);
  });

  it("stores a call without a sell rate unrated and undebited; rerate rates it exactly once", async () => {
    const group = await groupWithCard("prefix,rate,increment\n44,0.02,1/1\n");
    const unrated = cdr({ billingGroupId: group.id, to: "33612345678" });
    const [o] = await ingestCdrs(handle().db, [unrated]);
    expect(o.call).toMatchObject({ rated: false, priceMicros: 0n, billDuration: 0, matchedPrefix: null });
    expect(await balance(group.id)).toBe(10_000_000n);

    expect((await rerateUnratedCalls(handle().db, { billingGroupId: group.id })).rated).toBe(0);
    // A deck effective only from now does not price a call that started before it.
    await importSellRates(handle().db, group.id, parseRateCsv("prefix,rate,increment\n44,0.02,1/1\n33,0.06,30/6\n"));
    expect(await rerateUnratedCalls(handle().db, { billingGroupId: group.id })).toMatchObject({
      rated: 0,
      stillUnrated: 1,
    });
    // The operator adds the missing prefix in a deck effective from before the call.
    const csv = "prefix,rate,increment\n44,0.02,1/1\n33,0.06,30/6\n";
    await importSellRates(handle().db, group.id, parseRateCsv(csv), undefined, {
      effectiveFrom: new Date("2020-01-01T00:00:00Z"),
    });
    const [first, second] = await Promise.all([
      rerateUnratedCalls(handle().db, { billingGroupId: group.id }),
      rerateUnratedCalls(handle().db, { billingGroupId: group.id }),
    ]);
    expect(first.rated + second.rated).toBe(1);
    expect(await rerateUnratedCalls(handle().db, { billingGroupId: group.id })).toMatchObject({
      rated: 0,
      stillUnrated: 0,
    });
    const price = 66_000n; // 62 s on 30/6 -> 66 s at 0.06/min = 0.066
    expect(await balance(group.id)).toBe(10_000_000n - price);
    expect(await ledgerSum(group.id)).toBe(10_000_000n - price);
    const [replay] = await ingestCdrs(handle().db, [unrated]);
    expect(replay).toMatchObject({ status: "duplicate", call: { rated: true, priceMicros: price } });
  });

  it("keeps the sum of ledger entries equal to the balance, to the micro", async () => {
    const group = await groupWithCard("prefix,rate,increment\n4,0.000007,1/1\n44,0.013333,30/6\n447,0.1,60/60\n");
    const base = Date.parse("2025-03-01T10:00:00Z");
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            to: fc.constantFrom("4412", "4471", "49", "4"),
            answeredMs: fc.option(fc.integer({ min: 0, max: 4_000_000 }), { nil: null }),
            replay: fc.boolean(),
            topUp: fc.integer({ min: 0, max: 3 }),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        async (items) => {
          const cdrs = items.map((item) =>
            cdr({
              billingGroupId: group.id,
              to: item.to,
              startTime: new Date(base).toISOString(),
              answerTime: item.answeredMs === null ? null : new Date(base + 1000).toISOString(),
              endTime: new Date(base + 1000 + (item.answeredMs ?? 0)).toISOString(),
            }),
          );
          await ingestCdrs(handle().db, cdrs);
          await ingestCdrs(
            handle().db,
            cdrs.filter((_, i) => items[i].replay),
          );
          if (items[0].topUp > 0) await topUp(handle().db, group.id, BigInt(items[0].topUp) * 1_000_001n);
          expect(await ledgerSum(group.id)).toBe(await balance(group.id));
        },
      ),
      { numRuns: 15 },
    );
  });
});
