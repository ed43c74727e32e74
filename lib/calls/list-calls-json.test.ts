import { beforeAll, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal";
import { createBillingGroup } from "@/lib/billing/groups";
import { calls } from "@/lib/db/schema";
import { createSupplier } from "@/lib/rating/suppliers";
import { claimCallUuids } from "@/lib/testing/claim-call-uuids";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { storedCallValues } from "@/lib/testing/stored-call-values";
import { testPrincipal } from "@/lib/testing/test-principal";
import { listCalls, listCallsJson, type CallFilters } from "./list-calls";
import { serializeCall } from "./serialize-call";
import type { NewStoredCall } from "./stored-call";

process.env.CURSOR_SECRET ??= "unit-test-cursor-secret";

const base = Date.parse("2026-01-05T10:00:00.000Z");

/** A call with every listed column set; rows below vary what the JSON of each column must get right. */
const call = (groupId: string, i: number, overrides: Partial<NewStoredCall> = {}): NewStoredCall => ({
  ...storedCallValues(),
  uuid: `j-${i}`,
  billingGroupId: groupId,
  direction: i % 2 ? "inbound" : "outbound",
  fromNumber: "15550001",
  toNumber: "442071",
  // Ties on startTime (pages must break them by id) and milliseconds.
  startTime: new Date(base + Math.floor(i / 3) * 1000 + (i % 3 === 2 ? 123 : 0)),
  answerTime: null,
  endTime: new Date(base + Math.floor(i / 3) * 1000 + 61_007),
  duration: 61,
  billDuration: 60,
  pddMs: [1250, null, 1, 0, 1234, 999][i % 6],
  hangupCause: ["NORMAL_CLEARING", null][i % 2],
  q850Cause: [16, null, 17][i % 3],
  readCodec: ["PCMA", null][i % 2],
  writeCodec: ["PCMU", null][(i + 1) % 2],
  recordingUrl: [null, 'https://rec.example/a?b=1&c="2"'][i % 2],
  currency: ["USD", "EUR"][i % 2],
  rated: i % 4 !== 3,
  priceMicros: [0n, 1n, 100_000_001n, 999_999_999_999_999n, 12_345n, 7_000_000n][i % 6],
  supplierId: null,
  // null, below the price, above it (a negative margin), equal
  buyCostMicros: [null, 0n, 300_000_007n, 999_999_999_999_999n, 20_000n][i % 5],
  ...overrides,
});

describeOnEngines("listCallsJson", (handle) => {
  let groupA: string;
  let groupB: string;
  beforeAll(async () => {
    const db = handle().db;
    groupA = (await createBillingGroup(db, { name: "A", currency: "USD" })).id;
    groupB = (await createBillingGroup(db, { name: "B", currency: "EUR" })).id;
    const supplier = await createSupplier(db, { name: "Carrier" });
    const rows = Array.from({ length: 30 }, (_, i) =>
      call(i % 3 ? groupA : groupB, i, { supplierId: i % 2 ? supplier.id : null }),
    );
    // Text the JSON must escape: quotes, backslashes, control characters, non-ASCII, a line separator.
    rows.push(
      call(groupA, 30, {
        uuid: 'j-"q"\\b\\',
        fromNumber: "1\n2\t3\u0001\u001f\u007f",
        hangupCause: "é 😀 \u2028 </script>",
        readCodec: "",
      }),
    );
    await db.insert(calls).values(rows);
    await claimCallUuids(db);
  });

  const principals = (): [string, Principal][] => [
    ["bound key", testPrincipal(groupA)],
    ["bound cost key", testPrincipal(groupA, ["calls:read", "calls:read_cost"])],
    ["platform key", testPrincipal(null)],
    ["platform cost key", testPrincipal(null, ["calls:read", "calls:read_cost"])],
  ];

  /** Every page of both listings side by side: the same text as JSON.stringify of listCalls's page, the same cursors. */
  async function walkBoth(p: Principal, filters: CallFilters, pageSize: number): Promise<number> {
    let cursor: string | undefined;
    let seen = 0;
    for (let guard = 0; guard < 100; guard++) {
      const objects = await listCalls(handle().db, p, filters, { pageSize, cursor });
      const text = await listCallsJson(handle().db, p, filters, { pageSize, cursor });
      expect(text.callsJson).toBe(JSON.stringify(objects.page));
      expect(text.hasMore).toBe(objects.hasMore);
      expect(text.nextCursor).toBe(objects.nextCursor);
      seen += objects.page.length;
      if (!objects.hasMore) return seen;
      cursor = objects.nextCursor;
    }
    throw new Error("did not end");
  }

  it("gives each call as JSON.stringify(serializeCall) does, cost fields only for calls:read_cost, and the same pages and cursors", async () => {
    for (const [name, p] of principals()) {
      const filters: CallFilters = {};
      const everything = await walkBoth(p, filters, 50);
      expect(everything, name).toBe(p.billingGroupId === null ? 31 : 21);
      for (const pageSize of [1, 4])
        expect(await walkBoth(p, filters, pageSize), `${name}, pages of ${pageSize}`).toBe(everything);
      await walkBoth(p, { direction: "inbound", hangupCause: "normal_clearing" }, 3);
      await walkBoth(p, { billingGroupId: groupB }, 2);
    }
  });

  it("writes amounts beyond 15 significant digits exactly: a JSON reader gets the number serializeCall gives", async () => {
    // In a group of its own, which the other tests never list.
    const groupC = (await createBillingGroup(handle().db, { name: "C", currency: "USD" })).id;
    await handle()
      .db.insert(calls)
      .values(call(groupC, 40, { uuid: "j-big", priceMicros: 123_456_789_012_345_678n, buyCostMicros: 1n }));
    await claimCallUuids(handle().db);
    const cost = testPrincipal(null, ["calls:read", "calls:read_cost"]);
    const text = await listCallsJson(handle().db, cost, { uuid: "j-big" }, { pageSize: 1 });
    expect(text.callsJson).toContain('"price":123456789012.345678,"currency"');
    expect(text.callsJson).toContain('"margin":123456789012.345677,');
    const [objects] = (await listCalls(handle().db, cost, { uuid: "j-big" }, { pageSize: 1 })).page;
    expect(JSON.parse(text.callsJson)).toEqual([objects]);
  });

  it("an empty page is []", async () => {
    const empty = await listCallsJson(handle().db, testPrincipal(groupB), { uuid: "none" }, { pageSize: 5 });
    expect(empty).toEqual({ callsJson: "[]", hasMore: false, nextCursor: undefined });
  });

  it("leaves the cost fields out of a calls:read key's JSON (absent, not null)", async () => {
    const text = await listCallsJson(handle().db, testPrincipal(null), {}, { pageSize: 50 });
    for (const c of JSON.parse(text.callsJson) as Record<string, unknown>[]) {
      for (const name of ["buyCost", "margin", "supplierId", "buyRate"]) expect(name in c, name).toBe(false);
    }
    const [row] = await handle().db.select().from(calls).limit(1);
    expect(Object.keys(serializeCall(row, testPrincipal(null)))).toEqual(Object.keys(JSON.parse(text.callsJson)[0]));
  });
});
