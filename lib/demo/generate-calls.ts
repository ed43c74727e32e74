import type { NativeCdr } from "@/lib/ingest/schemas";
import type { Increment } from "@/lib/rating/schemas";
import { TOLL_FREE, UNRATED_RANGES, type Destination } from "./destinations";
import { Prng } from "@/lib/random/prng";

// Demo calls: what a switch would report over the last 90 days for each demo customer. Deterministic
// for a seed and a "now", so the same command gives the same data.

export interface DemoGroupPlan {
  key: string;
  name: string;
  currency: "USD" | "EUR";
  accountcode: string;
  /** Share of all calls. */
  weight: number;
  /** Sell rate = base rate x markup (x the EUR rate for EUR groups). */
  markup: number;
  /** Wholesale customers are billed per second everywhere. */
  increment?: Increment;
  /** Where its traffic goes: destination country (or region) -> weight. */
  traffic: readonly (readonly [string, number])[];
  /** Its own numbers: the calling line of outbound calls and the numbers inbound calls reach. */
  homeCountry: "US" | "DE" | "FR";
  utcOffsetHours: number;
  /** Share of answered calls it records. */
  recordingShare: number;
  inboundShare: number;
  /** Money on the account relative to its expected spend (below 1: it runs out and ends disabled). */
  fundingRatio: number;
  networkAddr: string;
}

export const EUR_PER_USD = 0.92;

export const DEMO_GROUPS: DemoGroupPlan[] = [
  {
    key: "acme",
    name: "Acme Contact Center",
    currency: "USD",
    accountcode: "ACME-001",
    weight: 40,
    markup: 1,
    traffic: [
      ["US", 58],
      ["CA", 8],
      ["United Kingdom", 6],
      ["Mexico", 6],
      ["India", 5],
      ["Philippines", 5],
      ["Germany", 3],
      ["Puerto Rico", 2],
      ["Dominican Republic", 2],
      ["Jamaica", 1],
      ["Brazil", 2],
      ["Colombia", 2],
    ],
    homeCountry: "US",
    utcOffsetHours: -5,
    recordingShare: 0.35,
    inboundShare: 0.22,
    fundingRatio: 1.6,
    networkAddr: "198.51.100.20",
  },
  {
    key: "globex",
    name: "Globex Telecom",
    currency: "USD",
    accountcode: "GLOBEX-01",
    weight: 25,
    markup: 0.86,
    increment: { min: 1, interval: 1 },
    traffic: [
      ["India", 18],
      ["Pakistan", 12],
      ["Bangladesh", 8],
      ["Nigeria", 8],
      ["Philippines", 10],
      ["Mexico", 8],
      ["Colombia", 6],
      ["Egypt", 5],
      ["Vietnam", 5],
      ["Indonesia", 5],
      ["China", 5],
      ["United Arab Emirates", 4],
      ["Saudi Arabia", 3],
      ["US", 3],
    ],
    homeCountry: "US",
    utcOffsetHours: -5,
    recordingShare: 0.02,
    inboundShare: 0.05,
    fundingRatio: 1.3,
    networkAddr: "203.0.113.71",
  },
  {
    key: "initech",
    name: "Initech GmbH",
    currency: "EUR",
    accountcode: "INITECH-DE",
    weight: 20,
    markup: 1.05,
    traffic: [
      ["Germany", 55],
      ["Austria", 8],
      ["Switzerland", 8],
      ["Poland", 6],
      ["Netherlands", 4],
      ["United Kingdom", 4],
      ["France", 3],
      ["Italy", 3],
      ["Turkey", 4],
      ["Russia", 2],
      ["US", 3],
    ],
    homeCountry: "DE",
    utcOffsetHours: 1,
    recordingShare: 0.08,
    inboundShare: 0.18,
    fundingRatio: 1.5,
    networkAddr: "198.51.100.140",
  },
  {
    key: "umbrella",
    name: "Umbrella Voyages SARL",
    currency: "EUR",
    accountcode: "UMBR-FR",
    weight: 10,
    markup: 1.1,
    traffic: [
      ["France", 45],
      ["Spain", 10],
      ["Italy", 8],
      ["Portugal", 5],
      ["Belgium", 6],
      ["United Kingdom", 6],
      ["US", 6],
      ["Thailand", 3],
      ["Japan", 3],
      ["Australia", 3],
      ["Ireland", 2],
      ["Sweden", 1],
      ["Norway", 1],
      ["Denmark", 1],
    ],
    homeCountry: "FR",
    utcOffsetHours: 1,
    recordingShare: 0.05,
    inboundShare: 0.15,
    fundingRatio: 1.4,
    networkAddr: "203.0.113.9",
  },
  {
    key: "hooli",
    name: "Hooli Startups Inc",
    currency: "USD",
    accountcode: "HOOLI-01",
    weight: 5,
    markup: 1.15,
    traffic: [
      ["US", 70],
      ["CA", 10],
      ["United Kingdom", 6],
      ["Israel", 5],
      ["Singapore", 3],
      ["Hong Kong", 3],
      ["South Korea", 3],
    ],
    homeCountry: "US",
    utcOffsetHours: -8,
    recordingShare: 0.1,
    inboundShare: 0.1,
    fundingRatio: 0.8,
    networkAddr: "198.51.100.201",
  },
];

const HOME_NUMBER_PREFIXES: Record<DemoGroupPlan["homeCountry"], { lines: string[]; tollFree: string[] }> = {
  US: { lines: ["1212555", "1646555", "1415555", "1312555"], tollFree: ["1800", "1888", "1877"] },
  DE: { lines: ["4930901", "4989420", "4940300"], tollFree: ["49800"] },
  FR: { lines: ["33142", "33478", "33491"], tollFree: ["33800", "33805"] },
};

/** Q.850 cause mix of outbound attempts; the answered ones end NORMAL_CLEARING. */
const OUTCOMES: readonly (readonly [{ cause: string; q850: number; answered: boolean }, number])[] = [
  [{ cause: "NORMAL_CLEARING", q850: 16, answered: true }, 68],
  [{ cause: "NO_ANSWER", q850: 19, answered: false }, 11],
  [{ cause: "USER_BUSY", q850: 17, answered: false }, 7],
  [{ cause: "CALL_REJECTED", q850: 21, answered: false }, 4],
  [{ cause: "UNALLOCATED_NUMBER", q850: 1, answered: false }, 3],
  [{ cause: "NORMAL_TEMPORARY_FAILURE", q850: 41, answered: false }, 2],
  [{ cause: "NO_USER_RESPONSE", q850: 18, answered: false }, 1.5],
  [{ cause: "NORMAL_CIRCUIT_CONGESTION", q850: 34, answered: false }, 1.5],
  [{ cause: "NO_ROUTE_DESTINATION", q850: 3, answered: false }, 1],
  [{ cause: "RECOVERY_ON_TIMER_EXPIRE", q850: 102, answered: false }, 1],
];

/** Share of calls by hour of the customer's local day: office hours, a lunch dip, a quiet night. */
const HOUR_WEIGHTS = [
  0.3, 0.2, 0.15, 0.1, 0.1, 0.2, 0.6, 1.5, 4, 7, 8, 8, 6, 6.5, 7.5, 7.5, 7, 5.5, 3.5, 2.2, 1.6, 1.2, 0.8, 0.5,
];
const HOURS = HOUR_WEIGHTS.map((w, h) => [h, w] as const);

export interface DemoSupplierPlan {
  key: "a" | "b";
  name: string;
  gatewayName: string;
  /** Cheaper in these regions; the router prefers the cheaper carrier. */
  strongRegions: Destination["region"][];
}

export const DEMO_SUPPLIERS: DemoSupplierPlan[] = [
  {
    key: "a",
    name: "Northwind Carrier Services",
    gatewayName: "carrier_a",
    strongRegions: ["europe", "africa", "mideast"],
  },
  { key: "b", name: "Blue Ocean Voice", gatewayName: "carrier_b", strongRegions: ["nanp", "asia", "latam", "oceania"] },
];

export interface DemoCall {
  group: DemoGroupPlan;
  cdr: NativeCdr;
  /** The demo's own rate choice, for sizing balances (the real price comes from the rating engine). */
  destination: Destination | null;
}

export interface CallGeneratorOptions {
  seed: number;
  now: Date;
  days?: number;
  /** supplier key -> supplier id, when the suppliers exist. */
  supplierIds?: Record<string, string>;
}

function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * Yields `count` calls. The destination index is grouped by country so a call picks a country by its
 * customer's traffic mix, then a range within it (mobile more often than fixed), then a full number.
 */
export function* generateCalls(
  count: number,
  destinations: Destination[],
  options: CallGeneratorOptions,
): Generator<DemoCall> {
  const rng = new Prng(options.seed);
  const days = options.days ?? 90;
  const nowMs = options.now.getTime();
  const byCountry = new Map<string, Destination[]>();
  for (const d of destinations) {
    if (d.country === "TF") continue;
    const list = byCountry.get(d.country) ?? [];
    list.push(d);
    byCountry.set(d.country, list);
  }
  const premium = destinations.find((d) => d.prefix === "449") ?? null;
  const groupWeights = DEMO_GROUPS.map((g) => [g, g.weight] as const);
  const supplierByRegion = (region: Destination["region"]) => {
    const strong = DEMO_SUPPLIERS.find((s) => s.strongRegions.includes(region)) ?? DEMO_SUPPLIERS[0];
    const other = DEMO_SUPPLIERS.find((s) => s !== strong) ?? strong;
    return rng.chance(0.8) ? strong : other;
  };

  for (let i = 0; i < count; i++) {
    const group = rng.weighted(groupWeights);
    const home = HOME_NUMBER_PREFIXES[group.homeCountry];
    const inbound = rng.chance(group.inboundShare);

    // When: a weekday more likely than a weekend, office hours in the customer's zone.
    let dayOffset: number;
    do dayOffset = rng.int(0, days - 1);
    while (isWeekend(nowMs - dayOffset * 86_400_000) && !rng.chance(0.3));
    const dayStart = Math.floor((nowMs - dayOffset * 86_400_000) / 86_400_000) * 86_400_000;
    const localHour = rng.weighted(HOURS);
    let start = dayStart + (localHour - group.utcOffsetHours) * 3_600_000 + rng.int(0, 3_599_999);

    let destination: Destination | null = null;
    let from: string;
    let to: string;
    if (inbound) {
      // A caller somewhere reaches one of the customer's freephone numbers.
      const tf = rng.pick(home.tollFree);
      const tfRow = TOLL_FREE.find(([p]) => p === tf);
      destination = tfRow
        ? {
            prefix: tf,
            rate: tfRow[2],
            description: tfRow[1],
            region: tf.startsWith("1") ? "nanp" : "europe",
            mobile: false,
            length: 0,
            country: "TF",
          }
        : null;
      to = tf + rng.digits((tf.startsWith("1") ? 11 : tf.length + 6) - tf.length);
      const callerCountry = rng.weighted(group.traffic.filter(([, w]) => w > 0));
      const callerRanges = byCountry.get(callerCountry) ?? byCountry.get("US") ?? [];
      const r = rng.pick(callerRanges);
      from = r.prefix + rng.digits(Math.max(0, r.length - r.prefix.length));
    } else {
      const line = rng.pick(home.lines);
      from =
        line +
        rng.digits(
          group.homeCountry === "US"
            ? 11 - line.length
            : group.homeCountry === "DE"
              ? 12 - line.length
              : 11 - line.length,
        );
      if (rng.chance(0.012)) {
        const unrated = rng.pick(UNRATED_RANGES);
        to = unrated.prefix + rng.digits(unrated.length - unrated.prefix.length);
      } else {
        const country = rng.weighted(group.traffic.filter(([, w]) => w > 0));
        const ranges = byCountry.get(country) ?? [];
        const mobiles = ranges.filter((d) => d.mobile);
        const fixed = ranges.filter((d) => !d.mobile);
        const pool = mobiles.length > 0 && (fixed.length === 0 || rng.chance(0.6)) ? mobiles : fixed;
        destination = rng.pick(pool.length > 0 ? pool : ranges);
        to = destination.prefix + rng.digits(Math.max(0, destination.length - destination.prefix.length));
        if (rng.chance(0.002) && group.homeCountry !== "US") {
          destination = premium; // the odd premium-rate call
          to = `449${rng.digits(9)}`;
        }
      }
    }

    // How it went.
    const outcome = inbound ? (rng.chance(0.93) ? OUTCOMES[0][0] : OUTCOMES[1][0]) : rng.weighted(OUTCOMES);
    const international = destination !== null && destination.region !== "nanp" && group.homeCountry === "US";
    const pdd = Math.min(25, Math.max(0.35, rng.logNormal(international ? 3.4 : 2.1, 0.45)));
    let answerMs: number | null = null;
    let end: number;
    if (outcome.answered) {
      answerMs = start + Math.round(pdd * 1000) + rng.int(1500, 18_000);
      // Talk time: mostly one to three minutes, a tail of long calls, some very short ones.
      const talk = rng.chance(0.08)
        ? rng.int(1, 12)
        : Math.min(3 * 3600, Math.max(2, rng.logNormal(inbound ? 150 : 95, 1.0)));
      end = answerMs + Math.round(talk * 1000) + rng.int(0, 999);
    } else if (outcome.cause === "NO_ANSWER" || outcome.cause === "NO_USER_RESPONSE") {
      end = start + Math.round(pdd * 1000) + rng.int(15_000, 60_000);
    } else if (outcome.cause === "USER_BUSY") {
      end = start + Math.round(pdd * 1000) + rng.int(300, 2000);
    } else {
      end = start + rng.int(150, 4000);
    }
    // Calls reported here have completed: keep them in the past.
    if (end > nowMs - 60_000) {
      const shift = end - (nowMs - 60_000) + rng.int(0, 3_600_000);
      start -= shift;
      end -= shift;
      if (answerMs !== null) answerMs -= shift;
    }

    const europe = group.homeCountry !== "US";
    const codec =
      answerMs === null
        ? null
        : rng.weighted(
            europe
              ? [
                  ["PCMA", 62],
                  ["G729", 20],
                  ["OPUS", 15],
                  ["PCMU", 3],
                ]
              : [
                  ["PCMU", 58],
                  ["G729", 22],
                  ["OPUS", 12],
                  ["PCMA", 8],
                ],
          );
    const writeCodec = codec && rng.chance(0.03) ? (codec === "OPUS" ? (europe ? "PCMA" : "PCMU") : "OPUS") : codec;
    const uuid = rng.uuid();
    const recorded = answerMs !== null && rng.chance(group.recordingShare);
    const startDate = new Date(start);
    const supplier =
      destination && outcome.cause !== "UNALLOCATED_NUMBER" ? supplierByRegion(destination.region) : null;

    const cdr: NativeCdr = {
      uuid,
      direction: inbound ? "inbound" : "outbound",
      from,
      to,
      startTime: isoAt(start),
      answerTime: answerMs === null ? null : isoAt(answerMs),
      endTime: isoAt(end),
      hangupCause: outcome.cause,
      q850Cause: outcome.q850,
      pdd: outcome.answered || outcome.cause !== "UNALLOCATED_NUMBER" ? Math.round(pdd * 1000) / 1000 : null,
      readCodec: codec,
      writeCodec,
      recordingUrl: recorded
        ? `https://recordings.callbook.example/${group.key}/${startDate.toISOString().slice(0, 10).replaceAll("-", "/")}/${uuid}.wav`
        : null,
      accountcode: group.accountcode,
      networkAddr: group.networkAddr,
      billingGroupId: null,
      supplierId: supplier && options.supplierIds ? (options.supplierIds[supplier.key] ?? null) : null,
      gateway: supplier && !options.supplierIds ? supplier.gatewayName : null,
    };
    yield { group, cdr, destination };
  }
}

function isWeekend(ms: number): boolean {
  const day = new Date(ms).getUTCDay();
  return day === 0 || day === 6;
}
