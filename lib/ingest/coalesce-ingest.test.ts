import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { createBillingGroup, getBillingGroup } from "@/lib/billing/groups";
import { queryRows, type Db } from "@/lib/db/client";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { createIngestCoalescer } from "./coalesce-ingest";
import { CdrConflictError, CdrRejectedError, ingestCdrs, type IngestOptions } from "./ingest-cdrs";
import { nativeCdrSchema, type NativeCdr, type NativeCdrInput } from "./schemas";

let seq = 0;
function cdr(overrides: Partial<NativeCdrInput> = {}) {
  seq++;
  return nativeCdrSchema.parse({
    uuid: `coal-${process.pid}-${seq}-${Math.random().toString(36).slice(2)}`,
    direction: "outbound",
    from: "4930123456",
    to: "442071234567",
    startTime: "2025-03-01T10:00:00Z",
    answerTime: "2025-03-01T10:00:05Z",
    endTime: "2025-03-01T10:01:06.250Z",
    ...overrides,
  });
}

const OPENING = 100_000_000n;

/** A coalescer over the real ingestCdrs that records the size of every batch it was given. */
function recordingCoalescer() {
  const batchSizes: number[] = [];
  const coalescer = createIngestCoalescer((db: Db, cdrs: readonly NativeCdr[], options: IngestOptions) => {
    batchSizes.push(cdrs.length);
    return ingestCdrs(db, cdrs, options);
  });
  return { coalescer, batchSizes };
}

describeOnEngines("coalesced single-CDR ingest", (handle) => {
  async function group() {
    const g = await createBillingGroup(handle().db, { name: "G", currency: "EUR", openingBalanceMicros: OPENING });
    await importSellRates(handle().db, g.id, parseRateCsv("prefix,rate,increment\n44,0.02,1/1\n4420,0.0120,60/60\n"));
    return g;
  }
  const balance = async (id: string) => (await getBillingGroup(handle().db, id))!.balanceMicros;
  const ledgerCount = async (id: string) =>
    Number(
      (
        await queryRows<{ n: bigint }>(
          handle().db,
          sql`SELECT count(*)::bigint AS n FROM ledger_entries WHERE billing_group_id = ${id} AND kind = 'debit'`,
        )
      )[0].n,
    );

  it("50 concurrent single ingests share transactions and each gets its own created outcome", async () => {
    const g = await group();
    const { coalescer, batchSizes } = recordingCoalescer();
    // Varying durations so the prices differ and a mix-up between callers would show.
    const inputs = Array.from({ length: 50 }, (_, i) =>
      cdr({
        billingGroupId: g.id,
        to: i % 2 ? "442071234567" : "441611234567",
        endTime: `2025-03-01T10:0${1 + (i % 8)}:0${i % 10}Z`,
      }),
    );
    const outcomes = await Promise.all(inputs.map((c) => coalescer.ingestOne(handle().db, c)));

    expect(outcomes.map((o) => o.status)).toEqual(inputs.map(() => "created"));
    expect(outcomes.map((o) => o.call.uuid)).toEqual(inputs.map((c) => c.uuid));
    expect(outcomes.map((o) => o.call.toNumber)).toEqual(inputs.map((c) => c.to));
    expect(outcomes.every((o) => o.call.rated && o.call.priceMicros > 0n)).toBe(true);
    const total = outcomes.reduce((s, o) => s + o.call.priceMicros, 0n);
    expect(await balance(g.id)).toBe(OPENING - total);
    expect(await ledgerCount(g.id)).toBe(50);
    // They were merged: fewer transactions than calls, every CDR ingested exactly once.
    expect(batchSizes.length).toBeLessThan(50);
    expect(batchSizes.reduce((s, n) => s + n, 0)).toBe(50);
  });

  it("a CDR naming an unknown group is rejected alone; the ones merged with it are stored", async () => {
    const g = await group();
    const { coalescer, batchSizes } = recordingCoalescer();
    const inputs = Array.from({ length: 10 }, (_, i) => cdr({ billingGroupId: i === 6 ? "grp_does_not_exist" : g.id }));
    const settled = await Promise.allSettled(inputs.map((c) => coalescer.ingestOne(handle().db, c)));

    settled.forEach((s, i) => {
      if (i === 6) {
        expect(s.status).toBe("rejected");
        const error = (s as PromiseRejectedResult).reason as unknown;
        expect(error).toBeInstanceOf(CdrRejectedError);
        expect(error).toMatchObject({ index: 0, field: "billingGroupId" });
      } else {
        expect(s.status).toBe("fulfilled");
        expect((s as PromiseFulfilledResult<{ status: string }>).value.status).toBe("created");
      }
    });
    // The merged batch containing it failed and was replayed one by one.
    expect(batchSizes.some((n) => n > 1)).toBe(true);
    const total = settled.reduce((sum, s) => (s.status === "fulfilled" ? sum + s.value.call.priceMicros : sum), 0n);
    expect(await balance(g.id)).toBe(OPENING - total);
    expect(await ledgerCount(g.id)).toBe(9);
  });

  it("the same uuid twice with different content: one created, one CdrConflictError", async () => {
    const g = await group();
    const { coalescer } = recordingCoalescer();
    const first = cdr({ billingGroupId: g.id });
    const other = { ...first, to: "441611234567" };
    // A leading CDR keeps the flush busy so both copies land in one merged batch.
    const settled = await Promise.allSettled(
      [cdr({ billingGroupId: g.id }), first, other].map((c) => coalescer.ingestOne(handle().db, c)),
    );

    expect(settled[0].status).toBe("fulfilled");
    const pair = settled.slice(1);
    const created = pair.filter((s) => s.status === "fulfilled");
    const failed = pair.filter((s): s is PromiseRejectedResult => s.status === "rejected");
    expect(created).toHaveLength(1);
    expect((created[0] as PromiseFulfilledResult<{ status: string }>).value.status).toBe("created");
    expect(failed).toHaveLength(1);
    expect(failed[0].reason).toBeInstanceOf(CdrConflictError);
    expect(await ledgerCount(g.id)).toBe(2);
  });

  it("the same uuid twice with the same content: one created, one duplicate, debited once", async () => {
    const g = await group();
    const { coalescer } = recordingCoalescer();
    const one = cdr({ billingGroupId: g.id });
    const outcomes = await Promise.all(
      [cdr({ billingGroupId: g.id }), one, { ...one }].map((c) => coalescer.ingestOne(handle().db, c)),
    );

    expect(
      outcomes
        .slice(1)
        .map((o) => o.status)
        .sort(),
    ).toEqual(["created", "duplicate"]);
    expect(outcomes[1].call.id).toBe(outcomes[2].call.id);
    expect(await balance(g.id)).toBe(OPENING - outcomes[0].call.priceMicros - outcomes[1].call.priceMicros);
    expect(await ledgerCount(g.id)).toBe(2);
  });

  it("a bound key's CDRs for its own group share batches with other posters'; another group's accountcode stays refused", async () => {
    const g = await group();
    const other = await createBillingGroup(handle().db, {
      name: "Other",
      currency: "EUR",
      openingBalanceMicros: OPENING,
      accountcode: `ac-${seq}-${process.pid}`,
    });
    const { coalescer, batchSizes } = recordingCoalescer();
    const bound = { restrictToBillingGroupId: g.id };
    const inputs: [NativeCdr, IngestOptions][] = [
      ...Array.from({ length: 6 }, (): [NativeCdr, IngestOptions] => [cdr({ billingGroupId: g.id }), bound]),
      ...Array.from({ length: 6 }, (): [NativeCdr, IngestOptions] => [cdr({ billingGroupId: g.id }), {}]),
      // The bound key naming another group's accountcode: refused as an unknown group, alone.
      [cdr({ billingGroupId: null, accountcode: other.accountcode! }), bound],
    ];
    const settled = await Promise.allSettled(inputs.map(([c, o]) => coalescer.ingestOne(handle().db, c, o)));

    settled.slice(0, 12).forEach((s) => expect(s.status === "fulfilled" && s.value.status).toBe("created"));
    expect(settled[12].status).toBe("rejected");
    expect((settled[12] as PromiseRejectedResult).reason).toMatchObject({ field: "accountcode" });
    // The twelve went through one lane: one batch holds bound and platform CDRs together.
    expect(batchSizes).toContain(12);
    expect(await ledgerCount(g.id)).toBe(12);
    expect(await ledgerCount(other.id)).toBe(0);
    expect(await balance(other.id)).toBe(OPENING);
  });

  it("a lone caller's error propagates as is", async () => {
    const { coalescer } = recordingCoalescer();
    await expect(coalescer.ingestOne(handle().db, cdr({ billingGroupId: "grp_missing" }))).rejects.toBeInstanceOf(
      CdrRejectedError,
    );
  });
});
