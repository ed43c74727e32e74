import { asc, sql } from "drizzle-orm";
import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import { createApiKey, revokeApiKey } from "@/lib/auth/manage-keys";
import type { Scope } from "@/lib/auth/scopes";
import { createBillingGroup, setBillingGroupDisabledByOperator, setBillingGroupInvoicing } from "@/lib/billing/groups";
import type { Db } from "@/lib/db/client";
import { Prng } from "@/lib/random/prng";
import { calls } from "@/lib/db/schema";
import { runInvoices } from "@/lib/invoices/run-invoices";
import type { NativeCdr } from "@/lib/ingest/schemas";
import { importBuyRates, importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { rateRowSchema } from "@/lib/rating/schemas";
import { createSupplier } from "@/lib/rating/suppliers";
import { addPerson } from "@/lib/people/add-person";
import { storeFixtureCdrs } from "./store-cdrs";

/**
 * The data every HTTP test can rely on, written through the domain functions before the server
 * starts. Groups `a` and `b` are read-only fixtures: tests must not add calls to them (their exact
 * listings are asserted). Tests that ingest use group `scratch` and its keys.
 */
export type GroupName = "a" | "b" | "c" | "scratch" | "zones" | "decks";
export type KeyName =
  | "readA"
  | "costA"
  | "readB"
  | "costB"
  | "platformRead"
  | "platformCost"
  | "ingestA"
  | "revokedA"
  | "readScratch"
  | "ingestScratch"
  | "ingestPlatform"
  | "readZones"
  | "costZones"
  | "readDecks"
  | "auditA"
  | "auditB"
  | "platformAudit"
  | "platformProvision"
  | "platformAccounts"
  | "boundProvision"
  | "keysA"
  | "keysReadA"
  | "keysB"
  | "platformKeys"
  | "invoicesA"
  | "alertsC"
  | "alertsReadC"
  | "alertsZones"
  | "platformAlerts"
  | "platformRates"
  | "boundRates";

export type PersonName =
  "ownerA" | "viewerA" | "billingA" | "staff" | "memberA" | "removedA" | "limitedA" | "staffAdmin" | "staffBilling";
export const PERSON_PASSWORD = "fixture password 1";

export interface FixtureGroup {
  id: string;
  name: string;
  currency: string;
  balance: number;
  disabled: boolean;
}

/** One seeded call as stored (the ground truth the listings are checked against). */
export interface FixtureCall {
  id: string;
  uuid: string;
  group: GroupName;
  billingGroupId: string;
  startTime: string;
  direction: "inbound" | "outbound";
  to: string;
  hangupCause: string | null;
}

export interface FixtureAuditEvent {
  group: "a" | "b" | null;
  targetId: string;
  actorId: string;
}

export interface SeededData {
  groups: Record<GroupName, FixtureGroup>;
  keys: Record<KeyName, string>;
  keyIds: Record<KeyName, string>;
  /**
   * People (password PERSON_PASSWORD): owner, viewer and billing of group `a` (whose cost role is owner), a platform
   * viewer, `memberA`/`removedA` of group `a` for the role change and removal tests and `limitedA` for the
   * per-account limit (people.test.ts), a platform admin and a platform billing person (staff-provisioning.test.ts).
   */
  people: Record<PersonName, string>;
  supplierId: string;
  /** Every seeded call, newest first (startTime DESC, id DESC). */
  calls: FixtureCall[];
  /** All seeded start times lie inside [windowStart, windowEnd]. */
  windowStart: string;
  windowEnd: string;
  /** The seeded audit events (action `fixture.seeded`), newest first: groups a and b and the platform's own. */
  auditEvents: FixtureAuditEvent[];
  /** Sell rate cards as imported: prefix -> [rate, increment]. */
  sellRates: Record<"a" | "b", Record<string, [string, string]>>;
}

const SELL_RATES: SeededData["sellRates"] = {
  a: { "44": ["0.05", "60/60"], "4420": ["0.012", "60/60"], "1": ["0.01", "1/1"], "33": ["0.03", "30/6"] },
  b: { "44": ["0.06", "1/1"], "442071": ["0.02", "60/60"] },
};

const TO_NUMBERS = ["442071234567", "4420%71", "4420_71", "33123456789", "14155550100", "44207\\1"];
const HANGUP_CAUSES = ["NORMAL_CLEARING", "USER_BUSY", "normal_clearing", "NO_ANSWER", null, "Call_Rejected"];
const WINDOW_START = Date.parse("2026-01-05T00:00:00.000Z");

/**
 * Group `zones` (read-only, GET /v1/usage time zones): calls around the US DST change (2026-03-08), a
 * midnight of Asia/Kolkata (+05:30, inside one UTC hour) and the UK DST change (2026-03-29); all outside
 * [windowStart, windowEnd], so the platform listings in that window do not see them.
 */
export const ZONE_CALL_STARTS = [
  "2026-03-08T04:30:00.000Z", // New York 03-07 23:30 EST
  "2026-03-08T05:30:00.000Z", // New York 03-08 00:30 EST
  "2026-03-09T03:30:00.000Z", // New York 03-08 23:30 EDT
  "2026-03-09T04:30:00.000Z", // New York 03-09 00:30 EDT
  "2026-03-10T18:29:59.999Z", // Kolkata 03-10 23:59:59.999
  "2026-03-10T18:30:00.000Z", // Kolkata 03-11 00:00
  "2026-03-28T23:30:00.000Z", // London 03-28 23:30 GMT
  "2026-03-29T23:30:00.000Z", // London 03-30 00:30 BST
];

/** A plain answered outbound call: answered 1 s after `startTime`, for `answered` seconds. */
function answeredCdr(
  uuid: string,
  to: string,
  startTime: string,
  answered: number,
  billingGroupId: string,
  supplierId: string | null,
): NativeCdr {
  const start = Date.parse(startTime);
  return {
    uuid,
    direction: "outbound",
    from: "15550009999",
    to,
    startTime,
    answerTime: new Date(start + 1_000).toISOString(),
    endTime: new Date(start + 1_000 + answered * 1000).toISOString(),
    hangupCause: "NORMAL_CLEARING",
    q850Cause: 16,
    pdd: null,
    readCodec: null,
    writeCodec: null,
    recordingUrl: null,
    accountcode: null,
    networkAddr: null,
    billingGroupId,
    supplierId,
    gateway: null,
  };
}

function zoneCdrs(billingGroupId: string, supplierId: string): NativeCdr[] {
  return ZONE_CALL_STARTS.map((startTime, i) =>
    answeredCdr(`fixture-zones-${i}`, TO_NUMBERS[i % TO_NUMBERS.length], startTime, 61 + i, billingGroupId, supplierId),
  );
}

/**
 * Group `decks` (read-only, dated rate decks and fees): deck 1 from the epoch, deck 2 from DECK_2_FROM with a connect
 * fee and a minimum, deck 3 in 2099 (not in force). Two calls outside [windowStart, windowEnd]: one started 1 s
 * before deck 2 (rated with deck 1), one of 3 s with deck 2 (the minimum applies).
 */
export const DECK_2_FROM = "2026-01-01T00:00:00.000Z";
export const DECK_CALLS = [
  // deck 1: 61 s answered on 60/60 -> 120 s at 0.05 = 0.1
  { startTime: "2025-12-31T23:59:59.000Z", answered: 61, price: 0.1 },
  // deck 2: 3 s on 1/1 at 0.04 = 0.002, + connect fee 0.015 = 0.017 < minimum 0.05
  { startTime: "2026-02-01T00:00:00.000Z", answered: 3, price: 0.05 },
];

async function seedDecks(db: Db, billingGroupId: string): Promise<void> {
  await importSellRates(db, billingGroupId, parseRateCsv("prefix,rate,increment\n44,0.05,60/60\n"));
  await importSellRates(
    db,
    billingGroupId,
    parseRateCsv(
      "prefix,rate,increment,description,connectFee,minCharge\n44,0.04,1/1,,0.015,0.05\n49,0.02,60/60,Germany,,\n",
    ),
    undefined,
    {
      effectiveFrom: new Date(DECK_2_FROM),
    },
  );
  await importSellRates(db, billingGroupId, parseRateCsv("prefix,rate,increment\n44,0.09,1/1\n"), undefined, {
    effectiveFrom: new Date("2099-01-01T00:00:00Z"),
  });
  await storeFixtureCdrs(
    db,
    DECK_CALLS.map((c, i) =>
      answeredCdr(`fixture-decks-${i}`, "447700900123", c.startTime, c.answered, billingGroupId, null),
    ),
  );
}

function fixtureCdrs(group: "a" | "b", billingGroupId: string, count: number, supplierId: string): NativeCdr[] {
  return Array.from({ length: count }, (_, i) => {
    // Triples share a start time, so the id tie-break of the order is exercised.
    const start = WINDOW_START + Math.floor(i / 3) * 37_000 + (group === "b" ? 11_000 : 0);
    const hangupCause = HANGUP_CAUSES[i % HANGUP_CAUSES.length];
    const answered = hangupCause !== "NO_ANSWER" && hangupCause !== "USER_BUSY";
    const seconds = (i * 17) % 300;
    return {
      uuid: `fixture-${group}-${String(i).padStart(4, "0")}`,
      direction: i % 3 === 0 ? "inbound" : "outbound",
      from: `1555000${String(i).padStart(4, "0")}`,
      to: TO_NUMBERS[i % TO_NUMBERS.length],
      startTime: new Date(start).toISOString(),
      answerTime: answered ? new Date(start + 2_000).toISOString() : null,
      endTime: new Date(start + 2_000 + seconds * 1000).toISOString(),
      hangupCause,
      q850Cause: hangupCause === "USER_BUSY" ? 17 : 16,
      pdd: i % 4 === 0 ? null : 1.25,
      readCodec: "PCMU",
      writeCodec: "PCMA",
      recordingUrl: i % 5 === 0 ? `/recordings/${group}-${i}.wav` : null,
      accountcode: `acct-${group}`,
      networkAddr: "192.0.2.10",
      billingGroupId,
      supplierId: i % 2 === 0 ? supplierId : null,
      gateway: null,
    };
  });
}

async function key(db: Db, scopes: Scope[], billingGroupId: string | null, name: string) {
  return createApiKey(db, { scopes, billingGroupId, name });
}

function rateRows(card: Record<string, [string, string]>) {
  return Object.entries(card).map(([prefix, [rate, increment]]) => rateRowSchema.parse({ prefix, rate, increment }));
}

/**
 * Audit events for the listing tests (read-only, like the calls of a and b): 23 of group a, 9 of b and 2 of the
 * platform, interleaved, from two actors; several share a transaction and so an instant. Newest first.
 */
async function seedAuditEvents(db: Db, a: string, b: string): Promise<FixtureAuditEvent[]> {
  const plan: FixtureAuditEvent[] = [];
  for (let i = 0; i < 34; i++) {
    const group =
      i === 10 || i === 30 ? null : i % 4 === 1 && plan.filter((e) => e.group === "b").length < 9 ? "b" : "a";
    plan.push({ group, targetId: `fixture-${i}`, actorId: i % 3 === 0 ? "key_fixture_x" : "key_fixture_y" });
  }
  const ids = { a, b };
  for (let i = 0; i < plan.length; i += 4) {
    await db.transaction(async (tx) => {
      for (const e of plan.slice(i, i + 4)) {
        await recordAuditEvent(tx, {
          actor: { type: "api_key", id: e.actorId, label: "fixture" },
          action: "fixture.seeded",
          billingGroupId: e.group === null ? null : ids[e.group],
          targetType: "fixture",
          targetId: e.targetId,
          address: "192.0.2.1",
          after: { n: e.targetId },
        });
      }
    });
  }
  return plan.reverse();
}

export async function seedFixtures(db: Db): Promise<SeededData> {
  const a = await createBillingGroup(db, { name: "Acme Telecom", currency: "USD", openingBalanceMicros: 100_000_000n });
  const b = await createBillingGroup(db, {
    name: "Bravo Networks",
    currency: "EUR",
    openingBalanceMicros: 50_500_000n,
  });
  const c = await createBillingGroup(db, { name: "Closed Ltd", currency: "GBP" });
  await setBillingGroupDisabledByOperator(db, c.id, true);
  const scratch = await createBillingGroup(db, {
    name: "Scratch",
    currency: "USD",
    openingBalanceMicros: 1_000_000_000n,
  });
  const zones = await createBillingGroup(db, { name: "Zones", currency: "USD", openingBalanceMicros: 1_000_000_000n });
  const decks = await createBillingGroup(db, { name: "Decks", currency: "USD", openingBalanceMicros: 1_000_000_000n });

  await importSellRates(db, a.id, rateRows(SELL_RATES.a));
  await importSellRates(db, b.id, rateRows(SELL_RATES.b));
  await importSellRates(db, scratch.id, rateRows(SELL_RATES.a));
  await importSellRates(db, zones.id, rateRows(SELL_RATES.a));
  const supplier = await createSupplier(db, { name: "Carrier One" });
  await importBuyRates(
    db,
    supplier.id,
    rateRows({ "44": ["0.004", "1/1"], "1": ["0.002", "1/1"], "33": ["0.01", "1/1"] }),
  );

  const created = {
    readA: await key(db, ["calls:read"], a.id, "read A"),
    costA: await key(db, ["calls:read_cost"], a.id, "cost A"),
    readB: await key(db, ["calls:read"], b.id, "read B"),
    costB: await key(db, ["calls:read", "calls:read_cost"], b.id, "cost B"),
    platformRead: await key(db, ["calls:read"], null, "platform read"),
    platformCost: await key(db, ["calls:read_cost"], null, "platform cost"),
    ingestA: await key(db, ["cdrs:write"], a.id, "ingest only A"),
    revokedA: await key(db, ["calls:read"], a.id, "revoked A"),
    readScratch: await key(db, ["calls:read_cost"], scratch.id, "read scratch"),
    ingestScratch: await key(db, ["cdrs:write", "calls:read"], scratch.id, "ingest scratch"),
    ingestPlatform: await key(db, ["cdrs:write"], null, "ingest platform"),
    readZones: await key(db, ["calls:read"], zones.id, "read zones"),
    costZones: await key(db, ["calls:read", "calls:read_cost"], zones.id, "cost zones"),
    readDecks: await key(db, ["calls:read"], decks.id, "read decks"),
    auditA: await key(db, ["audit:read"], a.id, "audit A"),
    auditB: await key(db, ["audit:read"], b.id, "audit B"),
    platformAudit: await key(db, ["audit:read"], null, "platform audit"),
    platformProvision: await key(db, ["accounts:write", "payments:write"], null, "platform provisioning"),
    platformAccounts: await key(db, ["accounts:write"], null, "platform accounts only"),
    boundProvision: await key(db, ["accounts:write", "payments:write"], c.id, "bound provisioning C"),
    keysA: await key(db, ["calls:read", "keys:write", "audit:read"], a.id, "keys A"),
    keysReadA: await key(db, ["keys:read"], a.id, "keys read A"),
    keysB: await key(db, ["calls:read", "keys:write", "audit:read"], b.id, "keys B"),
    platformKeys: await key(db, ["calls:read_cost", "keys:write", "audit:read"], null, "platform keys"),
    invoicesA: await key(db, ["invoices:read"], a.id, "invoices A"),
    // Alerts (tests/api/alerts.test.ts) on groups c and zones: groups a and b have audit listings asserted exactly.
    alertsC: await key(db, ["alerts:write", "audit:read"], c.id, "alerts C"),
    alertsReadC: await key(db, ["alerts:read"], c.id, "alerts read C"),
    alertsZones: await key(db, ["alerts:write"], zones.id, "alerts zones"),
    platformAlerts: await key(db, ["alerts:write"], null, "platform alerts"),
    platformRates: await key(db, ["rates:write"], null, "platform rates"),
    boundRates: await key(db, ["rates:write"], c.id, "bound rates C"),
  };
  await revokeApiKey(db, created.revokedA.id);

  const auditEvents = await seedAuditEvents(db, a.id, b.id);
  await db.execute(sql`UPDATE billing_groups SET cost_roles = '{owner}' WHERE id = ${a.id}`);
  const people = {} as Record<PersonName, string>;
  for (const [name, role, organization] of [
    ["ownerA", "owner", a.id],
    ["viewerA", "viewer", a.id],
    ["billingA", "billing", a.id],
    ["staff", "viewer", "platform"],
    ["memberA", "viewer", a.id],
    ["removedA", "viewer", a.id],
    ["limitedA", "viewer", a.id],
    ["staffAdmin", "admin", "platform"],
    ["staffBilling", "billing", "platform"],
  ] as const) {
    people[name] = (
      await addPerson(db, { email: `${name}@fixture.test`, name, password: PERSON_PASSWORD, role, organization })
    ).email;
  }

  const cdrs = new Prng(7).shuffle([
    ...fixtureCdrs("a", a.id, 157, supplier.id),
    ...fixtureCdrs("b", b.id, 64, supplier.id),
  ]);
  await storeFixtureCdrs(db, cdrs);
  await storeFixtureCdrs(db, zoneCdrs(zones.id, supplier.id));
  await seedDecks(db, decks.id);
  // Invoices (tests/api/invoices.test.ts): groups a and b as if created in December 2025, invoiced up to now (so the
  // server's own invoice run finds nothing left to issue), a in Berlin, postpaid, at 19 % tax.
  await db.execute(sql`UPDATE billing_groups SET created_at = '2025-12-10T00:00:00Z' WHERE id IN (${a.id}, ${b.id})`);
  await setBillingGroupInvoicing(db, a.id, { timeZone: "Europe/Berlin", billingMode: "postpaid", taxRatePpm: 190_000 });
  // An address line in Japanese and Hebrew: the built server embeds their fonts (tests/api/invoices.test.ts).
  await runInvoices(db, {
    issuer: { name: "Fixture Telecom", address: "1 Test Street\nTestville\n東京支店 / סניף תל אביב" },
  });

  const groupName = new Map<string, GroupName>([
    [a.id, "a"],
    [b.id, "b"],
    [c.id, "c"],
    [scratch.id, "scratch"],
    [zones.id, "zones"],
    [decks.id, "decks"],
  ]);
  const rows = await db
    .select()
    .from(calls)
    .orderBy(sql`${calls.startTime} DESC`, sql`${calls.id} DESC`);
  const groups = await db.query.billingGroups.findMany({ orderBy: (g) => [asc(g.name)] });
  const toGroup = (g: (typeof groups)[number]): FixtureGroup => ({
    id: g.id,
    name: g.name,
    currency: g.currency,
    balance: Number(g.balanceMicros) / 1e6,
    disabled: g.disabled,
  });
  const byId = new Map(groups.map((g) => [g.id, g]));

  return {
    groups: {
      a: toGroup(byId.get(a.id)!),
      b: toGroup(byId.get(b.id)!),
      c: toGroup(byId.get(c.id)!),
      scratch: toGroup(byId.get(scratch.id)!),
      zones: toGroup(byId.get(zones.id)!),
      decks: toGroup(byId.get(decks.id)!),
    },
    keys: Object.fromEntries(Object.entries(created).map(([k, v]) => [k, v.key])) as Record<KeyName, string>,
    keyIds: Object.fromEntries(Object.entries(created).map(([k, v]) => [k, v.id])) as Record<KeyName, string>,
    people,
    supplierId: supplier.id,
    auditEvents,
    calls: rows.map((r) => ({
      id: String(r.id),
      uuid: r.uuid,
      group: groupName.get(r.billingGroupId)!,
      billingGroupId: r.billingGroupId,
      startTime: r.startTime.toISOString(),
      direction: r.direction,
      to: r.toNumber,
      hangupCause: r.hangupCause,
    })),
    windowStart: new Date(WINDOW_START).toISOString(),
    windowEnd: new Date(WINDOW_START + 2 * 24 * 3600_000).toISOString(),
    sellRates: SELL_RATES,
  };
}
