import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import type { ProgressReporter } from "@/lib/runtime/progress";
import { createApiKey, type CreatedApiKey } from "@/lib/auth/manage-keys";
import { createBillingGroup } from "@/lib/billing/groups";
import { moveBalances } from "@/lib/billing/ledger";
import { queryRows, type Db } from "@/lib/db/client";
import { MICROS_PER_UNIT } from "@/lib/money/micros";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import type { NativeCdr } from "@/lib/ingest/schemas";
import { importBuyRates, importSellRates } from "@/lib/rating/import-rates";
import type { Increment, RateRow } from "@/lib/rating/schemas";
import { createSupplier } from "@/lib/rating/suppliers";
import { addPerson } from "@/lib/people/add-person";
import { setCostRoles } from "@/lib/people/cost-roles";
import type { Role } from "@/lib/auth/roles";
import { addDemoTiers, type DemoTiers } from "./demo-tiers";
import { buildDestinations, formatRate, retailIncrement, type Destination } from "./destinations";
import { DEMO_GROUPS, DEMO_SUPPLIERS, EUR_PER_USD, generateCalls, type DemoGroupPlan } from "./generate-calls";

/** The database already holds data: the demo only fills an empty one. */
export class DatabaseNotEmptyError extends Error {}

export interface DemoOptions {
  calls?: number;
  seed?: number;
  now?: Date;
  batchSize?: number;
  progress?: ProgressReporter;
}

export interface DemoResult {
  groups: { id: string; name: string; currency: string; accountcode: string }[];
  suppliers: { id: string; name: string; gatewayName: string }[];
  rates: { sell: number; buy: number };
  calls: number;
  seconds: number;
  keys: { read: CreatedApiKey; cost: CreatedApiKey; platform: CreatedApiKey; ingest: CreatedApiKey };
  /** People to sign in as (README "People, organizations and roles"); passwords random, shown only here. */
  people: {
    viewer: DemoPerson;
    billing: DemoPerson;
    reseller: DemoPerson;
    platform: DemoPerson;
    /** The owner of a reseller tier with a customer of its own (demo-tiers.ts), with the cost view. */
    tierReseller: DemoPerson;
    /** The owner of the reseller's customer (no children): no console. */
    tierCustomer: DemoPerson;
  };
  /** A reseller tier and its customer (demo-tiers.ts): not among `groups`, whose traffic is generated. */
  tiers: DemoTiers;
}

export interface DemoPerson {
  email: string;
  password: string;
  role: Role;
  /** The billing group's id, or "platform". */
  organization: string;
}

export const DEFAULT_DEMO_SEED = 20_250_101;

export async function isDatabaseEmpty(db: Db): Promise<boolean> {
  const [row] = await queryRows<{ used: boolean }>(
    db,
    sql`SELECT EXISTS (SELECT 1 FROM billing_groups) OR EXISTS (SELECT 1 FROM suppliers)
          OR EXISTS (SELECT 1 FROM api_keys) OR EXISTS (SELECT 1 FROM calls) AS used`,
  );
  return !row.used;
}

function sellRate(group: DemoGroupPlan, d: Destination): number {
  return d.rate * group.markup * (group.currency === "EUR" ? EUR_PER_USD : 1);
}

function sellIncrement(group: DemoGroupPlan, d: Destination): Increment {
  return group.increment ?? retailIncrement(d.region);
}

export function sellCard(group: DemoGroupPlan, destinations: Destination[]): RateRow[] {
  return destinations.map((d) => ({
    prefix: d.prefix,
    rate: formatRate(sellRate(group, d)),
    increment: sellIncrement(group, d),
    description: d.description,
  }));
}

/** A stable number in [0, 1) per supplier and prefix. */
function unit(key: string): number {
  let h = 2166136261;
  for (const ch of key) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
  return (h >>> 8) / 16777216;
}

/**
 * A supplier's buy card: well below retail where it is strong, closer elsewhere, and above retail on
 * about 3 % of prefixes, so some calls lose money (negative margin), as real routing does.
 */
export function buyCard(supplier: (typeof DEMO_SUPPLIERS)[number], destinations: Destination[]): RateRow[] {
  return destinations.map((d) => {
    const u = unit(`${supplier.key}:${d.prefix}`);
    const strong = supplier.strongRegions.includes(d.region);
    const factor =
      unit(`loss:${supplier.key}:${d.prefix}`) < 0.03 ? 1.05 + 0.25 * u : strong ? 0.52 + 0.2 * u : 0.68 + 0.2 * u;
    const increment: Increment =
      d.region === "africa" || d.region === "mideast" ? { min: 60, interval: 60 } : { min: 1, interval: 1 };
    return { prefix: d.prefix, rate: formatRate(d.rate * factor), increment, description: d.description };
  });
}

function billableSeconds(answered: number, inc: Increment): number {
  if (answered <= 0) return 0;
  if (answered <= inc.min) return inc.min;
  return inc.min + Math.ceil((answered - inc.min) / inc.interval) * inc.interval;
}

interface SpendEstimate {
  /** The first call's start: when the demo's customers began. */
  firstStart: number;
  /** Per group: its calls' end (ms) and estimated price, in order of their end. */
  calls: Map<string, { end: number; price: number }[]>;
}

/** What each group will spend and when, roughly (floats are fine here: it only sizes and times the funding). */
function estimateSpend(count: number, destinations: Destination[], seed: number, now: Date): SpendEstimate {
  const calls = new Map<string, { end: number; price: number }[]>(DEMO_GROUPS.map((g) => [g.key, []]));
  let firstStart = now.getTime();
  for (const { group, cdr, destination } of generateCalls(count, destinations, { seed, now })) {
    firstStart = Math.min(firstStart, Date.parse(cdr.startTime));
    if (!destination || !cdr.answerTime) continue;
    const seconds = Math.ceil((Date.parse(cdr.endTime) - Date.parse(cdr.answerTime)) / 1000);
    const billable = billableSeconds(seconds, sellIncrement(group, destination));
    calls.get(group.key)!.push({ end: Date.parse(cdr.endTime), price: (sellRate(group, destination) * billable) / 60 });
  }
  for (const list of calls.values()) list.sort((a, b) => a.end - b.end);
  return { firstStart, calls };
}

/**
 * When the customer tops up, as one would: once its balance falls below a quarter of the opening balance (a minute
 * after the call that took it there), else half-way through the history.
 */
function topUpTime(calls: { end: number; price: number }[], opening: number, from: number, to: number): Date {
  let balance = opening;
  for (const call of calls) {
    balance -= call.price;
    if (balance < opening / 4) return new Date(Math.min(call.end + 60_000, to));
  }
  return new Date(Math.round((from + to) / 2));
}

const roundUpTo = (value: number, step: number) => Math.max(step, Math.ceil(value / step) * step);

/**
 * Fills an empty database: billing groups in USD and EUR with opening balances and a top-up, a sell
 * rate card per group and two suppliers' buy cards (a few thousand real-looking prefixes each), the
 * calls of the last 90 days through ingestCdrs in batches (so balances and ledgers are right), and
 * one API key of each kind, and one person of each demo role. The ledger is dated as real traffic
 * would have left it: the opening balance at the first call, the top-up when the balance ran low,
 * each call's debit at its end (so every invoice's balance block has the month's movements).
 */
export async function runDemo(db: Db, options: DemoOptions = {}): Promise<DemoResult> {
  const started = performance.now();
  const count = options.calls ?? 50_000;
  const seed = options.seed ?? DEFAULT_DEMO_SEED;
  const now = options.now ?? new Date();
  const batchSize = options.batchSize ?? 1000;
  const progress = options.progress ?? (() => undefined);
  if (!(await isDatabaseEmpty(db))) {
    throw new DatabaseNotEmptyError(
      "the database is not empty: demo only fills an empty database (use a fresh DATA_DIR or database)",
    );
  }

  const destinations = buildDestinations();
  const estimate = estimateSpend(count, destinations, seed, now);
  // The demo's customers have been customers since their first call, so the invoice run (docs/contract.md §10) has
  // their closed months to invoice, each with the ledger of its month.
  const since = new Date(estimate.firstStart);

  // Groups: 70 % of the money as the opening balance (when the group began), the rest as a top-up when it ran low.
  const groups = [];
  for (const plan of DEMO_GROUPS) {
    const calls = estimate.calls.get(plan.key) ?? [];
    const funding = roundUpTo(calls.reduce((sum, c) => sum + c.price, 0) * plan.fundingRatio, 10);
    const opening = roundUpTo(funding * 0.7, 10);
    const group = await createBillingGroup(db, {
      name: plan.name,
      currency: plan.currency,
      accountcode: plan.accountcode,
      openingBalanceMicros: BigInt(opening) * MICROS_PER_UNIT,
      createdAt: since,
    });
    if (funding > opening) {
      const paidAt = topUpTime(calls, opening, estimate.firstStart, now.getTime() - 60_000);
      await db.transaction((tx) =>
        moveBalances(tx, [
          {
            billingGroupId: group.id,
            kind: "topup",
            amountMicros: BigInt(funding - opening) * MICROS_PER_UNIT,
            callId: null,
            description: "Top-up (card)",
            createdAt: paidAt,
          },
        ]),
      );
    }
    groups.push({ plan, group });
  }

  const totalCards = groups.length + DEMO_SUPPLIERS.length;
  let cardsDone = 0;
  let sellRows = 0;
  let buyRows = 0;
  for (const { plan, group } of groups) {
    sellRows += (await importSellRates(db, group.id, sellCard(plan, destinations))).imported;
    progress({ phase: "rate cards", done: ++cardsDone, total: totalCards });
  }
  const suppliers = [];
  for (const plan of DEMO_SUPPLIERS) {
    const supplier = await createSupplier(db, { name: plan.name, gatewayName: plan.gatewayName });
    buyRows += (await importBuyRates(db, supplier.id, buyCard(plan, destinations))).imported;
    suppliers.push({ plan, supplier });
    progress({ phase: "rate cards", done: ++cardsDone, total: totalCards });
  }

  const supplierIds = Object.fromEntries(suppliers.map(({ plan, supplier }) => [plan.key, supplier.id]));
  let batch: NativeCdr[] = [];
  let done = 0;
  for (const { cdr } of generateCalls(count, destinations, { seed, now, supplierIds })) {
    batch.push(cdr);
    if (batch.length >= batchSize) {
      await ingestCdrs(db, batch, { debitsAtCallEnd: true });
      done += batch.length;
      batch = [];
      progress({ phase: "calls", done, total: count });
    }
  }
  if (batch.length > 0) {
    await ingestCdrs(db, batch, { debitsAtCallEnd: true });
    done += batch.length;
  }
  progress({ phase: "calls", done, total: count });
  const main = groups[0].group;
  const keys = {
    read: await createApiKey(db, {
      scopes: ["calls:read"],
      billingGroupId: main.id,
      name: "Demo: customer portal / read",
    }),
    cost: await createApiKey(db, {
      scopes: ["calls:read_cost"],
      billingGroupId: main.id,
      name: "Demo: reseller with cost",
    }),
    platform: await createApiKey(db, {
      scopes: ["calls:read_cost"],
      billingGroupId: null,
      name: "Demo: platform (all groups)",
    }),
    ingest: await createApiKey(db, { scopes: ["cdrs:write"], billingGroupId: null, name: "Demo: switch ingest" }),
  };

  // The main group is a reseller whose owner sees cost and margin; its viewer and billing person do not.
  await setCostRoles(db, main.id, ["owner"]);
  const person = async (email: string, name: string, role: Role, organization: string): Promise<DemoPerson> => {
    const password = `demo-${randomBytes(9).toString("base64url")}`;
    await addPerson(db, { email, name, password, role, organization });
    return { email, password, role, organization };
  };
  const basePeople = {
    viewer: await person("viewer@example.com", "Vera Viewer", "viewer", main.id),
    billing: await person("billing@example.com", "Bill Ing", "billing", main.id),
    reseller: await person("owner@example.com", "Olga Owner", "owner", main.id),
    platform: await person("staff@example.com", "Stan Staff", "admin", "platform"),
  };
  const tiers = await addDemoTiers(db, {
    rates: sellCard(groups[0].plan, destinations),
    supplierId: suppliers[0].supplier.id,
    now,
  });
  const people = {
    ...basePeople,
    tierReseller: await person("reseller@example.com", "Rita Reseller", "owner", tiers.reseller.id),
    tierCustomer: await person("tier-customer@example.com", "Cora Customer", "owner", tiers.customer.id),
  };

  return {
    groups: groups.map(({ group }) => ({
      id: group.id,
      name: group.name,
      currency: group.currency,
      accountcode: group.accountcode ?? "",
    })),
    suppliers: suppliers.map(({ supplier, plan }) => ({
      id: supplier.id,
      name: supplier.name,
      gatewayName: plan.gatewayName,
    })),
    rates: { sell: sellRows, buy: buyRows },
    calls: done,
    seconds: Math.round((performance.now() - started) / 10) / 100,
    keys,
    people,
    tiers,
  };
}
