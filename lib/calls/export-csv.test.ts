import { sql } from "drizzle-orm";
import { testPrincipal } from "@/lib/testing/test-principal";
import { beforeAll, describe, expect, it } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { csvField } from "@/lib/http/csv";
import { exportCallsCsv } from "./export-csv";

process.env.CURSOR_SECRET ??= "export-csv-test-secret";

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

describe("csv fields", () => {
  it("quotes separators and defuses formulas but keeps numbers and phone numbers", () => {
    expect(csvField('a,"b"')).toBe('"a,""b"""');
    expect(csvField("=HYPERLINK(1)")).toBe("'=HYPERLINK(1)");
    expect(csvField("+442071234567")).toBe("+442071234567");
    expect(csvField(-0.0042)).toBe("-0.0042");
    expect(csvField(null)).toBe("");
  });
});

describeOnEngines("CSV export", (handle) => {
  let groupId: string;
  let otherId: string;

  beforeAll(async () => {
    groupId = (await createBillingGroup(handle().db, { name: "A", currency: "USD" })).id;
    otherId = (await createBillingGroup(handle().db, { name: "B", currency: "USD" })).id;
    await handle().db.execute(sql`INSERT INTO suppliers (id, name) VALUES ('sup_x', 'Carrier')`);
    for (let i = 0; i < 7; i++) {
      const start = new Date(Date.UTC(2026, 10, 1, 12, 0, i)).toISOString();
      await handle().db
        .execute(sql`INSERT INTO calls (uuid, billing_group_id, direction, from_number, to_number, start_time, end_time,
          duration, bill_duration, currency, rated, price_micros, buy_cost_micros, supplier_id, hangup_cause)
        VALUES (${`u${i}`}, ${groupId}, 'outbound', '100', ${`4420${i}`}, ${start}::timestamptz, ${start}::timestamptz,
          60, 60, 'USD', true, ${1_000n + BigInt(i)}, 2000, 'sup_x', ${i === 3 ? "a,b" : "NORMAL_CLEARING"})`);
    }
    await handle().db
      .execute(sql`INSERT INTO calls (uuid, billing_group_id, direction, from_number, to_number, start_time, end_time,
        duration, bill_duration, currency, rated, price_micros)
      VALUES ('other', ${otherId}, 'inbound', '1', '2', now(), now(), 1, 1, 'USD', true, 5)`);
  });

  it("streams every page of the principal's calls, newest first, without cost columns for calls:read", async () => {
    const csv = await readAll(await exportCallsCsv(handle().db, testPrincipal(groupId, ["calls:read"]), {}, 2));
    const lines = csv.trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "id,uuid,direction,from,to,startTime,endTime,duration,billDuration,pdd,hangupCause,q850Cause,readCodec,writeCodec,price,currency,recordingUrl,billingGroupId,rated",
    );
    expect(lines).toHaveLength(1 + 7);
    expect(lines.slice(1).map((l) => l.split(",")[1])).toEqual(["u6", "u5", "u4", "u3", "u2", "u1", "u0"]);
    expect(lines[1]).toContain(",0.001006,USD,");
    expect(csv).toContain('"a,b"');
    expect(csv).not.toMatch(/buyCost|margin|supplierId|sup_x/);
  });

  it("adds buy cost, exact margin and supplier for the platform's calls:read_cost", async () => {
    const platformCost = testPrincipal(null, ["calls:read_cost"]);
    const csv = await readAll(
      await exportCallsCsv(handle().db, platformCost, { direction: "outbound", billingGroupId: groupId }, 3),
    );
    const [header, first] = csv.split("\r\n");
    expect(header.endsWith(",buyCost,margin,supplierId")).toBe(true);
    expect(first.endsWith(",0.002,-0.000994,sup_x")).toBe(true);
  });

  it("gives a bound key's cost view (a reseller's) its own figures: none on its own calls, no supplier", async () => {
    const csv = await readAll(
      await exportCallsCsv(handle().db, testPrincipal(groupId, ["calls:read_cost"]), { direction: "outbound" }, 3),
    );
    const [header, first] = csv.split("\r\n");
    expect(header.endsWith(",rated,buyCost,margin")).toBe(true);
    expect(first.endsWith(",,")).toBe(true);
    expect(csv).not.toMatch(/supplierId|sup_x|0\.002,/);
  });

  it("reads the first page before answering: a failing query throws instead of starting a download", async () => {
    // Every query fails, as when the database is unreachable.
    const broken = new Proxy(handle().db, {
      get: () => () => {
        throw Object.assign(new Error("connection refused"), { code: "ECONNREFUSED" });
      },
    });
    await expect(exportCallsCsv(broken, testPrincipal(groupId, ["calls:read"]), {})).rejects.toThrow(
      "connection refused",
    );
  });

  it("applies the filters and the key's reach", async () => {
    const platform = await readAll(
      await exportCallsCsv(handle().db, testPrincipal(null, ["calls:read"]), { direction: "inbound" }),
    );
    expect(platform.trimEnd().split("\r\n")).toHaveLength(2);
    const none = await readAll(
      await exportCallsCsv(handle().db, testPrincipal(groupId, ["calls:read"]), { direction: "inbound" }),
    );
    expect(none.trimEnd().split("\r\n")).toHaveLength(1);
  });
});
