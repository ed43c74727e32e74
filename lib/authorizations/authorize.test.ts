import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { ApiError } from "@/lib/errors/api-error";
import type { Principal } from "@/lib/auth/principal";
import { createBillingGroup, getBillingGroup, setBillingGroupDisabledByOperator } from "@/lib/billing/groups";
import { queryRows } from "@/lib/db/client";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import { nativeCdrSchema } from "@/lib/ingest/schemas";
import { importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { activeReservedMicros, authorizeCall, getAuthorization } from "./authorize";
import { authorizationRequestSchema } from "./schemas";

const bound = (billingGroupId: string): Principal => ({
  keyId: "key_test",
  scopes: new Set(["cdrs:write"]),
  billingGroupId,
  rateCardVersion: null,
  via: "api_key",
});
const platform: Principal = {
  keyId: "key_platform",
  scopes: new Set(["cdrs:write"]),
  billingGroupId: null,
  rateCardVersion: null,
  via: "api_key",
};

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e.code;
    throw e;
  }
  return "granted";
}

let seq = 0;
const uuid = () => `auth-${process.pid}-${++seq}`;

describeOnEngines("prepaid authorizations", (handle) => {
  /** balance 1.00 + credit 0.50 = 1.50 available; 44: 0.60/min per second; 4420: 1.00/min 60/60 with a 0.10 connect fee. */
  async function group(balance = 1_000_000n, creditLimit = 500_000n) {
    const g = await createBillingGroup(handle().db, {
      name: "Prepaid",
      currency: "USD",
      openingBalanceMicros: balance,
      creditLimitMicros: creditLimit,
    });
    await importSellRates(
      handle().db,
      g.id,
      parseRateCsv("prefix,rate,increment,connectFee\n44,0.60,1/1,\n4420,1.00,60/60,0.10\n"),
    );
    return g;
  }

  it("grants the longest duration the balance + credit limit allow, keeping a second for the rounding up, and reserves its price", async () => {
    const g = await group();
    const { created, authorization } = await authorizeCall(handle().db, bound(g.id), {
      uuid: uuid(),
      destination: "+4479000",
    });
    expect(created).toBe(true);
    // 1.50 at 0.60/min = 150 s; a call cut at 149 s (149.x measured) bills 150 s = 1.50.
    expect(authorization).toMatchObject({
      status: "active",
      maxDurationSeconds: 149,
      reserved: 1.5,
      currency: "USD",
      matchedPrefix: "44",
      sellRate: 0.6,
      billingIncrement: "1/1",
    });
    expect(Date.parse(authorization.expiresAt) - Date.parse(authorization.createdAt)).toBe((149 + 600) * 1000);
    expect(await refusal(authorizeCall(handle().db, bound(g.id), { uuid: uuid(), destination: "4479000" }))).toBe(
      "insufficient_balance",
    );
  });

  it("includes the connect fee and the increment: 60/60 at 1.00 + 0.10 with 1.50 available allows 59 s (one minute + fee = 1.10)", async () => {
    const g = await group();
    const { authorization } = await authorizeCall(handle().db, bound(g.id), { uuid: uuid(), destination: "44201234" });
    expect(authorization).toMatchObject({ maxDurationSeconds: 59, reserved: 1.1, matchedPrefix: "4420" });
  });

  it("caps the grant at the requested maxDurationSeconds and leaves the rest available", async () => {
    const g = await group();
    const a = await authorizeCall(handle().db, bound(g.id), {
      uuid: uuid(),
      destination: "4479",
      maxDurationSeconds: 60,
    });
    expect(a.authorization).toMatchObject({ maxDurationSeconds: 60, reserved: 0.61 });
    const b = await authorizeCall(handle().db, bound(g.id), { uuid: uuid(), destination: "4479" });
    expect(b.authorization).toMatchObject({ maxDurationSeconds: 88, reserved: 0.89 }); // 1.50 - 0.61 = 0.89
    expect(await activeReservedMicros(handle().db, g.id)).toBe(1_500_000n);
  });

  it("is idempotent by uuid: the same request answers the stored authorization, another destination is a conflict", async () => {
    const g = await group();
    const id = uuid();
    const first = await authorizeCall(handle().db, bound(g.id), { uuid: id, destination: "4479" });
    const again = await authorizeCall(handle().db, bound(g.id), { uuid: id, destination: "4479" });
    expect(again).toEqual({ created: false, authorization: first.authorization });
    expect(await refusal(authorizeCall(handle().db, bound(g.id), { uuid: id, destination: "4480" }))).toBe("conflict");
    expect(await activeReservedMicros(handle().db, g.id)).toBe(1_500_000n);
  });

  it("ignores a leading + when comparing a replay's destination, as it does for matching", async () => {
    const g = await group();
    const id = uuid();
    const first = await authorizeCall(handle().db, bound(g.id), { uuid: id, destination: "4420" });
    const plus = await authorizeCall(handle().db, bound(g.id), { uuid: id, destination: "+4420" });
    expect(plus).toEqual({ created: false, authorization: first.authorization });
    const other = uuid();
    const withPlus = await authorizeCall(handle().db, bound(g.id), { uuid: other, destination: "+4479" });
    expect(await authorizeCall(handle().db, bound(g.id), { uuid: other, destination: "4479" })).toEqual({
      created: false,
      authorization: withPlus.authorization,
    });
    expect(await refusal(authorizeCall(handle().db, bound(g.id), { uuid: id, destination: "+44200" }))).toBe(
      "conflict",
    );
  });

  it("is settled by the call's CDR: charged once at the call's own price, the unused part released", async () => {
    const g = await group();
    const id = uuid();
    await authorizeCall(handle().db, bound(g.id), { uuid: id, destination: "4479" });
    // A call that just ended (rates apply from their deck's effective date: now).
    const start = new Date(Date.now() - 60_000);
    const cdr = nativeCdrSchema.parse({
      uuid: id,
      billingGroupId: g.id,
      direction: "outbound",
      from: "1",
      to: "4479",
      startTime: start.toISOString(),
      answerTime: start.toISOString(),
      endTime: new Date(start.getTime() + 30_000).toISOString(),
    });
    const [outcome] = await ingestCdrs(handle().db, [cdr], { restrictToBillingGroupId: g.id });
    await ingestCdrs(handle().db, [cdr], { restrictToBillingGroupId: g.id }); // the switch retries: still charged once
    const settled = await getAuthorization(handle().db, g.id, id);
    expect(settled).toMatchObject({ status: "settled", callId: outcome.call.id.toString() });
    expect((await getBillingGroup(handle().db, g.id))?.balanceMicros).toBe(700_000n); // 1.00 - 0.30
    const [ledger] = await queryRows<{ n: number | bigint }>(
      handle().db,
      sql`SELECT count(*) AS n FROM ledger_entries WHERE billing_group_id = ${g.id} AND kind = 'debit'`,
    );
    expect(Number(ledger.n)).toBe(1);
    expect(await activeReservedMicros(handle().db, g.id)).toBe(0n);
    // 0.70 + 0.50 credit = 1.20 available again.
    const next = await authorizeCall(handle().db, bound(g.id), { uuid: uuid(), destination: "4479" });
    expect(next.authorization.maxDurationSeconds).toBe(119);
    // Authorizing a call that already ended is refused.
    await ingestCdrs(handle().db, [{ ...cdr, uuid: "ended-first" }], { restrictToBillingGroupId: g.id });
    expect(await refusal(authorizeCall(handle().db, bound(g.id), { uuid: "ended-first", destination: "4479" }))).toBe(
      "conflict",
    );
  });

  it("stops counting a reservation once it expires", async () => {
    const g = await group();
    const id = uuid();
    await authorizeCall(handle().db, bound(g.id), { uuid: id, destination: "4479" });
    await handle().db.execute(
      sql`UPDATE authorizations SET expires_at = now() - interval '1 second' WHERE uuid = ${id}`,
    );
    expect((await getAuthorization(handle().db, g.id, id))?.status).toBe("expired");
    expect(await activeReservedMicros(handle().db, g.id)).toBe(0n);
    expect(
      (await authorizeCall(handle().db, bound(g.id), { uuid: uuid(), destination: "4479" })).authorization
        .maxDurationSeconds,
    ).toBe(149);
  });

  it("refuses disabled groups, unknown destinations, bad bodies; platform keys name the group, bound keys only their own", async () => {
    const g = await group();
    const other = await group();
    expect(await refusal(authorizeCall(handle().db, bound(g.id), { uuid: uuid(), destination: "999" }))).toBe(
      "no_rate",
    );
    // Bad bodies never reach authorizeCall: apiRoute parses the operation's schema (422 `invalid_request_body`).
    for (const bad of [
      { uuid: uuid(), destination: "44a" },
      { destination: "44" },
      { uuid: uuid(), destination: "44", maxDurationSeconds: 0 },
    ]) {
      expect(authorizationRequestSchema.safeParse(bad).success).toBe(false);
    }
    expect(
      await refusal(
        authorizeCall(handle().db, bound(g.id), { uuid: uuid(), destination: "44", billingGroupId: other.id }),
      ),
    ).toBe("not_found");
    expect(await refusal(authorizeCall(handle().db, platform, { uuid: uuid(), destination: "44" }))).toBe(
      "billing_group_required",
    );
    expect(
      await refusal(
        authorizeCall(handle().db, platform, { uuid: uuid(), destination: "44", billingGroupId: "bg_nope" }),
      ),
    ).toBe("not_found");
    expect(
      await refusal(
        authorizeCall(handle().db, platform, { uuid: uuid(), destination: "44", billingGroupId: other.id }),
      ),
    ).toBe("granted");
    await setBillingGroupDisabledByOperator(handle().db, g.id, true);
    expect(await refusal(authorizeCall(handle().db, bound(g.id), { uuid: uuid(), destination: "44" }))).toBe(
      "insufficient_balance",
    );
  });

  it("never reserves more than is available under 60 concurrent authorizations on one group", async () => {
    const g = await group(10_000_000n, 0n);
    const results = await Promise.all(
      Array.from({ length: 60 }, () =>
        refusalOrGrant(
          authorizeCall(handle().db, bound(g.id), { uuid: uuid(), destination: "4479", maxDurationSeconds: 60 }),
        ),
      ),
    );
    const granted = results.filter((r): r is number => typeof r === "number");
    // 0.61 per full grant: 16 fit in 10.00 (9.76), the 17th gets what is left (0.24 -> 23 s, reserving 0.24).
    expect(granted.filter((s) => s === 60)).toHaveLength(16);
    expect(granted.filter((s) => s !== 60)).toEqual([23]);
    expect(results.filter((r) => r === "insufficient_balance")).toHaveLength(43);
    expect(await activeReservedMicros(handle().db, g.id)).toBe(10_000_000n);
  });
});

async function refusalOrGrant(p: Promise<{ authorization: { maxDurationSeconds: number } }>): Promise<number | string> {
  try {
    return (await p).authorization.maxDurationSeconds;
  } catch (e) {
    if (e instanceof ApiError) return e.code;
    throw e;
  }
}
