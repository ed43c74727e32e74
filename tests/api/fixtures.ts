import type { Db } from "@/lib/db/client";
import { seedAuditEvents, type FixtureAuditEvent } from "./fixtures/audit";
import { readGroups, seedGroups, type FixtureGroup, type GroupName } from "./fixtures/billing";
import { CALL_WINDOW, readCalls, seedCalls, type FixtureCall } from "./fixtures/calls";
import { seedInvoices } from "./fixtures/invoices";
import { seedKeys, type KeyName } from "./fixtures/keys";
import { seedPeople, type PersonName } from "./fixtures/people";
import { SELL_RATES, seedDecks, seedRates, type SellRates } from "./fixtures/rating";
import { seedTiers, type TierFixture } from "./fixtures/tiers";

/**
 * The data every HTTP test can rely on, written through the domain functions before the server starts. Each
 * concept seeds its own part (tests/api/fixtures/<concept>.ts); this composes them in order (groups, rates, keys,
 * audit events, people, calls, decks, invoices: the calls are rated by the cards before them, the invoices bill them).
 */
export interface SeededData {
  groups: Record<GroupName, FixtureGroup>;
  keys: Record<KeyName, string>;
  keyIds: Record<KeyName, string>;
  /** People (fixtures/people.ts), password PERSON_PASSWORD: each one's email. */
  people: Record<PersonName, string>;
  supplierId: string;
  /** Every seeded call, newest first (startTime DESC, id DESC). */
  calls: FixtureCall[];
  /** All seeded start times of groups a and b lie inside [windowStart, windowEnd]. */
  windowStart: string;
  windowEnd: string;
  /** The seeded audit events (action `fixture.seeded`), newest first: groups a and b and the platform's own. */
  auditEvents: FixtureAuditEvent[];
  /** Sell rate cards as imported: prefix -> [rate, increment]. */
  sellRates: SellRates;
  /** Reseller tiers (fixtures/tiers.ts): a tree of accounts with their own keys and calls. */
  tiers: TierFixture;
}

export async function seedFixtures(db: Db): Promise<SeededData> {
  const groups = await seedGroups(db);
  const { supplierId } = await seedRates(db, groups);
  const { keys, keyIds } = await seedKeys(db, groups);
  const auditEvents = await seedAuditEvents(db, groups.a, groups.b);
  const people = await seedPeople(db, groups.a);
  await seedCalls(db, groups, supplierId);
  await seedDecks(db, groups.decks);
  await seedInvoices(db, groups.a, groups.b);
  const calls = await readCalls(db, groups);
  const tiers = await seedTiers(db, supplierId);
  return {
    groups: await readGroups(db, groups),
    keys,
    keyIds,
    people,
    supplierId,
    auditEvents,
    calls,
    ...CALL_WINDOW,
    sellRates: SELL_RATES,
    tiers,
  };
}
