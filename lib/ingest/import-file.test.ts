import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBillingGroup, getBillingGroup } from "@/lib/billing/groups";
import { queryRows, type Db, type DbHandle } from "@/lib/db/client";
import { importBuyRates, importSellRates } from "@/lib/rating/import-rates";
import { rateRowSchema } from "@/lib/rating/schemas";
import { createSupplier } from "@/lib/rating/suppliers";
import { ENGINES, openTestDb } from "@/lib/testing/engines";
import { detectFormat, importCdrFile } from "./import-file";
import { CdrRejectedError } from "./ingest-cdrs";
import { switchUrlEncode } from "./testing/switch-url-encode";

const FIXTURES = path.join(__dirname, "fixtures");
const rows = (lines: string[]) =>
  lines.map((l) => {
    const [prefix, rate, increment] = l.split(",");
    return rateRowSchema.parse({ prefix, rate, increment });
  });

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cb-import-"));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function writeFile(name: string, text: string): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, text);
  return file;
}

const nativeCdr = (uuid: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    uuid,
    direction: "outbound",
    from: "12125550143",
    to: "4915112345678",
    startTime: "2025-02-01T09:00:00Z",
    answerTime: "2025-02-01T09:00:05Z",
    endTime: "2025-02-01T09:01:05Z",
    hangupCause: "NORMAL_CLEARING",
    q850Cause: 16,
    accountcode: "ACME-001",
    ...extra,
  });

describe("format detection", () => {
  it("goes by extension, and by the first record for JSON lines", async () => {
    expect(await detectFormat(path.join(FIXTURES, "Master.csv"))).toBe("asterisk");
    expect(await detectFormat(FIXTURES)).toBe("freeswitch");
    expect(await detectFormat(path.join(FIXTURES, "freeswitch-answered.json"))).toBe("freeswitch");
    const fsLines = fs.readFileSync(path.join(FIXTURES, "freeswitch-answered.json"), "utf8");
    expect(await detectFormat(writeFile("fs.jsonl", `${JSON.stringify(JSON.parse(fsLines))}\n`))).toBe("freeswitch");
    expect(await detectFormat(writeFile("native.ndjson", `\n${nativeCdr("n-1")}\n`))).toBe("native");
  });
});

describe("import failures that are not the records' fault", () => {
  it("stops when the database is unreachable instead of rejecting every line", async () => {
    const file = writeFile("down.jsonl", `${nativeCdr("down-1")}\n${nativeCdr("down-2")}\n`);
    let calls = 0;
    const ingest = async () => {
      calls++;
      throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    };
    // A PostgreSQL-like handle (never queried: ingest is stubbed), so two batches may be in flight.
    await expect(importCdrFile({} as unknown as Db, file, { ingest })).rejects.toThrow(/ECONNREFUSED/);
    expect(calls).toBe(1);
  });

  it("with batches in flight finishing out of order, lists the first 100 rejected records in file order", async () => {
    // 300 records, every one refused by ingest; batches of 50, the first batch the slowest to answer.
    const file = writeFile(
      "refused.jsonl",
      Array.from({ length: 300 }, (_, i) => nativeCdr(`refused-${i}`)).join("\n"),
    );
    const ingest = async (_db: Db, cdrs: readonly { uuid: string }[]) => {
      if (cdrs.length > 1) await new Promise((resolve) => setTimeout(resolve, cdrs[0].uuid === "refused-0" ? 40 : 1));
      throw new CdrRejectedError(0, "billingGroupId", "no billing group has the id");
    };
    const summary = await importCdrFile({} as unknown as Db, file, { ingest, batchSize: 50, concurrency: 3 });
    expect(summary.rejected).toBe(300);
    expect(summary.rejectedLines.map((r) => r.line)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it("with batches in flight, a failure waits for the others and then stops the import", async () => {
    const file = writeFile(
      "down-many.jsonl",
      Array.from({ length: 10 }, (_, i) => nativeCdr(`down-m-${i}`)).join("\n"),
    );
    const settled: string[] = [];
    const ingest = async (_db: Db, cdrs: readonly { uuid: string }[]) => {
      await new Promise((resolve) => setTimeout(resolve, cdrs[0].uuid === "down-m-0" ? 5 : 30));
      settled.push(cdrs[0].uuid);
      throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    };
    await expect(importCdrFile({} as unknown as Db, file, { ingest, batchSize: 1, concurrency: 2 })).rejects.toThrow(
      /ECONNREFUSED/,
    );
    // The second batch was in flight when the first failed: it finished before the import answered; no third began.
    expect(settled).toEqual(["down-m-0", "down-m-1"]);
  });
});

describe.each(ENGINES)("cdrs import on %s", (engine) => {
  let handle: DbHandle;
  let groupId: string;

  const balance = async () => (await getBillingGroup(handle.db, groupId))!.balanceMicros;
  const ledgerSum = async () => {
    const [row] = await queryRows<{ total: string }>(
      handle.db,
      sql`SELECT COALESCE(SUM(amount_micros), 0)::text AS total FROM ledger_entries WHERE billing_group_id = ${groupId}`,
    );
    return BigInt(row.total);
  };
  /** A call by uuid, or an Asterisk leg by its uniqueid (the leg's uuid is `uniqueid-suffix`). */
  const call = async (uuid: string) => {
    const [row] = await queryRows<{
      rated: boolean;
      price: string;
      bill: number;
      buy: string | null;
      supplier: string | null;
      start: string;
    }>(
      handle.db,
      sql`SELECT rated, price_micros::text AS price, bill_duration AS bill, buy_cost_micros::text AS buy, supplier_id AS supplier,
                 to_char(start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS start
          FROM calls WHERE uuid = ${uuid} OR uuid LIKE ${`${uuid}-%`}`,
    );
    return row;
  };

  beforeAll(async () => {
    handle = await openTestDb(engine);
    const group = await createBillingGroup(handle.db, {
      name: "Acme",
      currency: "USD",
      accountcode: "ACME-001",
      openingBalanceMicros: 100_000_000n,
    });
    groupId = group.id;
    await importSellRates(
      handle.db,
      groupId,
      rows(["44,0.0150,60/60", "4420,0.0120,60/60", "1,0.0090,1/1", "4915,0.0450,30/6", "33,0.0140,30/6"]),
    );
    const carrierA = await createSupplier(handle.db, { name: "Carrier A", gatewayName: "carrier_a" });
    await createSupplier(handle.db, { name: "Carrier B", gatewayName: "carrier_b" });
    await importBuyRates(handle.db, carrierA.id, rows(["44,0.0080,1/1", "1,0.0040,1/1"]));
  });
  afterAll(async () => {
    await handle?.close();
  });

  it("imports the Asterisk Master.csv fixture to the expected calls and prices", async () => {
    const before = await balance();
    const summary = await importCdrFile(handle.db, path.join(FIXTURES, "Master.csv"), { timeZone: "Europe/Berlin" });
    expect(summary).toMatchObject({
      format: "asterisk",
      records: 6,
      inserted: 6,
      duplicates: 0,
      unrated: 1,
      rejected: 0,
      rejectedLines: [],
    });
    // 123 s answered at 60/60 -> 180 s x 0.0120/min = 0.036; local 10:15 in Berlin is 09:15 UTC
    expect(await call("1735809300.1")).toMatchObject({
      rated: true,
      bill: 180,
      price: "36000",
      buy: "16400",
      start: "2025-01-02T09:15:00.000",
    });
    expect(await call("1735812000.3")).toMatchObject({ rated: true, bill: 0, price: "0" }); // NO ANSWER
    // satellite number: no sell rate, stored unrated, not debited
    expect(await call("1751371200.11")).toMatchObject({ rated: false, price: "0" });
    // 61 s -> 120 s x 0.0120 = 0.024 (the record without uniqueid, under its line hash)
    const [hashed] = await queryRows<{ price: string }>(
      handle.db,
      sql`SELECT price_micros::text AS price FROM calls WHERE uuid LIKE 'ast-%'`,
    );
    expect(hashed.price).toBe("24000");
    expect(before - (await balance())).toBe(60_000n);
    expect(await ledgerSum()).toBe(await balance());
  });

  it("with several batches in flight, a uuid repeated across them is one call, charged once, and bad lines are listed in file order", async () => {
    const lines: string[] = [];
    for (let i = 0; i < 40; i++)
      lines.push(
        nativeCdr(`flight-${i % 25}`, {
          startTime: "2025-03-01T09:00:00Z",
          answerTime: "2025-03-01T09:00:05Z",
          endTime: "2025-03-01T09:01:05Z",
        }),
      );
    lines[7] = nativeCdr("flight-bad-7", { billingGroupId: "bg_nosuchgroup" });
    lines[31] = "{not json";
    const before = await balance();
    const summary = await importCdrFile(handle.db, writeFile("flight.jsonl", `${lines.join("\n")}\n`), {
      batchSize: 4,
      concurrency: 3,
    });
    // 40 lines: 2 bad (lines 8 and 32); the 38 good ones name flight-0..24 (7 and 6 also on lines 33 and 7): 25 calls
    expect(summary).toMatchObject({ records: 40, inserted: 25, duplicates: 13, rejected: 2 });
    expect(summary.rejectedLines.map((r) => r.line)).toEqual([8, 32]);
    // 60 s at 30/6 x 0.0450/min = 0.045 each
    expect(before - (await balance())).toBe(25n * 45_000n);
    expect(await ledgerSum()).toBe(await balance());
  });

  it("counts a second import of the same file as duplicates and debits nothing", async () => {
    const before = await balance();
    const summary = await importCdrFile(handle.db, path.join(FIXTURES, "Master.csv"), { timeZone: "Europe/Berlin" });
    expect(summary).toMatchObject({ inserted: 0, duplicates: 6, unrated: 0, rejected: 0 });
    expect(await balance()).toBe(before);
  });

  it("imports a directory of FreeSWITCH documents through the gateway mapping", async () => {
    const before = await balance();
    const summary = await importCdrFile(handle.db, FIXTURES, { batchSize: 1 });
    expect(summary).toMatchObject({ format: "freeswitch", records: 3, inserted: 3, rejected: 0 });
    // answered 125.401 s -> 126 s -> 180 s at 60/60 x 0.0120; carrier_a buys 1/1: 126 s x 0.0080 = 0.0168
    const answered = await call("0f7d2c9e-5a41-4b8e-9d36-2c1e8f4a7b90");
    expect(answered).toMatchObject({
      rated: true,
      bill: 180,
      price: "36000",
      buy: "16800",
      start: "2025-01-01T10:00:00.123",
    });
    expect(answered.supplier).not.toBeNull();
    expect(await call("5b2e9f13-7c04-4d6a-b1e8-93f0c2a7d415")).toMatchObject({ rated: true, bill: 0, price: "0" });
    // the 1.10 gateway leg: answered 187.402 s -> 188 s -> 240 s at 60/60 x 0.0120; carrier_gw is no supplier
    expect(await call("c41e8b27-5d3a-4f96-b0e2-7a9c1d6f4e58")).toMatchObject({
      rated: true,
      bill: 240,
      price: "48000",
    });
    expect(before - (await balance())).toBe(36_000n + 48_000n);
  });

  it("imports mod_json_cdr's err-log-dir as encode=true and base64 leave it (the post's encoded text, a file each)", async () => {
    const dir = path.join(tmp, `json_cdr-${engine}`);
    fs.mkdirSync(dir);
    const doc = (uuid: string) => {
      const d = JSON.parse(fs.readFileSync(path.join(FIXTURES, "freeswitch-answered.json"), "utf8")) as {
        variables: Record<string, string>;
      };
      d.variables.uuid = uuid;
      return JSON.stringify(d);
    };
    const encoded = `err-encoded-${engine}`;
    const base64 = `err-base64-${engine}`;
    fs.writeFileSync(path.join(dir, `${encoded}.cdr.json`), `${switchUrlEncode(doc(encoded))}\n`);
    fs.writeFileSync(path.join(dir, `a_${base64}.cdr.json`), `${Buffer.from(doc(base64)).toString("base64")}\n`);
    const summary = await importCdrFile(handle.db, dir);
    expect(summary).toMatchObject({ format: "freeswitch", records: 2, inserted: 2, rejected: 0 });
    expect(await call(encoded)).toMatchObject({ rated: true, bill: 180, price: "36000" });
    expect(await call(base64)).toMatchObject({ rated: true, bill: 180, price: "36000" });
  });

  it("reports bad lines by number and keeps the good ones, also when the database refuses a batch", async () => {
    const file = writeFile(
      `mixed-${engine}.jsonl`,
      [
        nativeCdr(`${engine}-good-1`),
        "{ not json",
        nativeCdr(`${engine}-no-to`, { to: undefined }),
        nativeCdr(`${engine}-unknown-account`, { accountcode: "NOBODY" }),
        nativeCdr(`${engine}-good-2`, { to: "33612345678" }),
        "",
        nativeCdr(`${engine}-good-3`, { answerTime: null, hangupCause: "NO_ANSWER", q850Cause: 19 }),
      ].join("\n"),
    );
    const before = await balance();
    const summary = await importCdrFile(handle.db, file, { batchSize: 10 });
    expect(summary).toMatchObject({ format: "native", records: 6, inserted: 3, duplicates: 0, rejected: 3 });
    expect(summary.rejectedLines.map((r) => r.line)).toEqual([2, 3, 4]);
    expect(summary.rejectedLines[0].error).toMatch(/JSON/);
    expect(summary.rejectedLines[1].error).toMatch(/^to:/);
    expect(summary.rejectedLines[2].error).toMatch(/^accountcode:.*NOBODY/);
    // 60 s at 30/6 x 0.0450 = 0.045; 60 s at 30/6 x 0.0140 = 0.014; unanswered 0
    expect(before - (await balance())).toBe(59_000n);
    expect(await ledgerSum()).toBe(await balance());
    const [count] = await queryRows<{ n: number }>(
      handle.db,
      sql`SELECT count(*)::int AS n FROM calls WHERE uuid LIKE ${`${engine}-%`}`,
    );
    expect(count.n).toBe(3);
  });

  it("stores both legs of an Asterisk channel (one uniqueid), and a re-import of them is a no-op", async () => {
    const legs = await createBillingGroup(handle.db, {
      name: "Legs",
      currency: "USD",
      accountcode: "ast_h323",
      openingBalanceMicros: 10_000_000n,
    });
    await importSellRates(handle.db, legs.id, rows(["49,0.0200,1/1", "44,0.0100,1/1"]));
    const file = path.join(FIXTURES, "Master-legs.csv");
    const summary = await importCdrFile(handle.db, file);
    expect(summary).toMatchObject({ records: 3, inserted: 3, duplicates: 0, rejected: 0 });
    const stored = await queryRows<{ uuid: string; bill: number }>(
      handle.db,
      sql`SELECT uuid, bill_duration AS bill FROM calls WHERE billing_group_id = ${legs.id} AND uuid LIKE '1741079521.26-%' ORDER BY start_time`,
    );
    expect(stored.map((r) => r.bill)).toEqual([0, 84]); // the failed first leg, then the answered second one
    const balance = (await getBillingGroup(handle.db, legs.id))!.balanceMicros;
    expect(await importCdrFile(handle.db, file)).toMatchObject({ inserted: 0, duplicates: 3, rejected: 0 });
    expect((await getBillingGroup(handle.db, legs.id))!.balanceMicros).toBe(balance);
  });

  it("charges an explicit --group even when the lines carry a PBX accountcode", async () => {
    // ast_h323 is the switch's own account code: no group maps it here, --group says whose calls these are.
    const target = await createBillingGroup(handle.db, {
      name: "Target",
      currency: "USD",
      openingBalanceMicros: 10_000_000n,
    });
    const file = writeFile(
      `legs-${engine}.csv`,
      fs.readFileSync(path.join(FIXTURES, "Master-legs.csv"), "utf8").replaceAll("ast_h323", `ast_h323_${engine}`),
    );
    const summary = await importCdrFile(handle.db, file, { billingGroupId: target.id });
    expect(summary).toMatchObject({ records: 3, inserted: 3, rejected: 0, rejectedLines: [] });
    const [row] = await queryRows<{ n: number; accountcode: string }>(
      handle.db,
      sql`SELECT count(*)::int AS n, min(accountcode) AS accountcode FROM calls WHERE billing_group_id = ${target.id}`,
    );
    expect(row).toEqual({ n: 3, accountcode: `ast_h323_${engine}` }); // kept as reported
    // a native line that names another group explicitly is refused, not moved
    const named = writeFile(`named-${engine}.jsonl`, `${nativeCdr(`${engine}-named`, { billingGroupId: groupId })}\n`);
    const refused = await importCdrFile(handle.db, named, { billingGroupId: target.id });
    expect(refused).toMatchObject({ inserted: 0, rejected: 1 });
    expect(refused.rejectedLines[0].error).toMatch(/^billingGroupId:/);
  });

  it("fills --group for records that name no group, and reports progress up to the file size", async () => {
    const line = JSON.parse(nativeCdr(`${engine}-grouped`, { accountcode: undefined })) as object;
    const file = writeFile(`grouped-${engine}.jsonl`, `${JSON.stringify(line)}\n`);
    const events: { done: number; total?: number }[] = [];
    const summary = await importCdrFile(handle.db, file, { billingGroupId: groupId, progress: (e) => events.push(e) });
    expect(summary).toMatchObject({ inserted: 1, rejected: 0 });
    expect(events.at(-1)).toMatchObject({ done: fs.statSync(file).size, total: fs.statSync(file).size });
  });
});
