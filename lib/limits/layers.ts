import type { ParamError } from "@/lib/errors/api-error";
import { microsToNumber } from "@/lib/money/micros";
import type { LimitsBody, limitLayerSchema } from "./schemas";
import type { z } from "zod";

// An account's layers of limits (the operator's, each of its providers', its own) and what they add up to. Pure: no
// database.

export interface WindowRule {
  max: number;
  windowSeconds: number;
}

/** One layer; null: no limit. Money in micro-units. */
export interface LimitLayer {
  maxConcurrentCalls: number | null;
  callsPerSecond: number | null;
  dailySpendMicros: bigint | null;
  monthlySpendMicros: bigint | null;
  blockedPrefixes: string[];
  allowedPrefixes: string[] | null;
  distinctDestinations: WindowRule | null;
  callsPerPrefix: WindowRule | null;
  /** A fraud rule's crossing disables the account: the operator's option. */
  disableOnFraud: boolean;
}

export const NO_LIMITS: LimitLayer = {
  maxConcurrentCalls: null,
  callsPerSecond: null,
  dailySpendMicros: null,
  monthlySpendMicros: null,
  blockedPrefixes: [],
  allowedPrefixes: null,
  distinctDestinations: null,
  callsPerPrefix: null,
  disableOnFraud: false,
};

export function layerFromBody(body: LimitsBody): LimitLayer {
  return {
    maxConcurrentCalls: body.maxConcurrentCalls,
    callsPerSecond: body.callsPerSecond,
    dailySpendMicros: body.dailySpend,
    monthlySpendMicros: body.monthlySpend,
    blockedPrefixes: body.blockedPrefixes,
    allowedPrefixes: body.allowedPrefixes,
    distinctDestinations: body.distinctDestinations,
    callsPerPrefix: body.callsPerPrefix,
    disableOnFraud: body.disableOnFraud,
  };
}

/**
 * The stored JSON (account_limits.operator, .customer, and each value of .providers): money as decimal strings of
 * micro-units.
 */
export function storedLayer(layer: LimitLayer): Record<string, unknown> {
  return {
    ...layer,
    dailySpendMicros: layer.dailySpendMicros?.toString() ?? null,
    monthlySpendMicros: layer.monthlySpendMicros?.toString() ?? null,
  };
}

type Stored = Partial<Record<keyof LimitLayer, unknown>>;

/** A stored layer back from its JSON text; `{}` (the column's default) is no limits. */
export function parseStoredLayer(text: string | null | undefined): LimitLayer {
  return text ? storedLayerOf(JSON.parse(text)) : NO_LIMITS;
}

/** A stored layer back from its JSON value, already parsed (authorize_state's answer, account_limits.providers). */
export function storedLayerOf(value: unknown): LimitLayer {
  if (value === null || typeof value !== "object") return NO_LIMITS;
  const s = value as Stored;
  const micros = (v: unknown) => (typeof v === "string" ? BigInt(v) : null);
  return {
    maxConcurrentCalls: (s.maxConcurrentCalls as number | null) ?? null,
    callsPerSecond: (s.callsPerSecond as number | null) ?? null,
    dailySpendMicros: micros(s.dailySpendMicros),
    monthlySpendMicros: micros(s.monthlySpendMicros),
    blockedPrefixes: (s.blockedPrefixes as string[] | undefined) ?? [],
    allowedPrefixes: (s.allowedPrefixes as string[] | null | undefined) ?? null,
    distinctDestinations: (s.distinctDestinations as WindowRule | null | undefined) ?? null,
    callsPerPrefix: (s.callsPerPrefix as WindowRule | null | undefined) ?? null,
    disableOnFraud: s.disableOnFraud === true,
  };
}

export function layerAnswer(layer: LimitLayer): z.output<typeof limitLayerSchema> {
  return {
    maxConcurrentCalls: layer.maxConcurrentCalls,
    callsPerSecond: layer.callsPerSecond,
    dailySpend: layer.dailySpendMicros === null ? null : microsToNumber(layer.dailySpendMicros),
    monthlySpend: layer.monthlySpendMicros === null ? null : microsToNumber(layer.monthlySpendMicros),
    blockedPrefixes: layer.blockedPrefixes,
    allowedPrefixes: layer.allowedPrefixes,
    distinctDestinations: layer.distinctDestinations,
    callsPerPrefix: layer.callsPerPrefix,
    disableOnFraud: layer.disableOnFraud,
  };
}

/**
 * Where a layer would loosen one above it (the provider's the operator's; the customer's both): a number above the
 * upper layer's (for a rule that one set), named as `whose` ("operator's", "provider's"). Block lists, allow lists and
 * the velocity windows of every layer all hold, so those can only tighten anyway; a looser number would hold too, but
 * silently do nothing, so it is refused rather than stored. Disabling the account on fraud is the operator's option.
 */
export function loosenings(upper: LimitLayer, layer: LimitLayer, whose = "operator's"): ParamError[] {
  const out: ParamError[] = [];
  const above = (param: string, op: number | bigint | null, cu: number | bigint | null, shown = String(op)) => {
    if (op !== null && cu !== null && cu > op)
      out.push({ param, message: `must not exceed the ${whose} limit (${shown})` });
  };
  above("maxConcurrentCalls", upper.maxConcurrentCalls, layer.maxConcurrentCalls);
  above("callsPerSecond", upper.callsPerSecond, layer.callsPerSecond);
  const money = (m: bigint | null) => (m === null ? "" : String(microsToNumber(m)));
  above("dailySpend", upper.dailySpendMicros, layer.dailySpendMicros, money(upper.dailySpendMicros));
  above("monthlySpend", upper.monthlySpendMicros, layer.monthlySpendMicros, money(upper.monthlySpendMicros));
  above("distinctDestinations.max", upper.distinctDestinations?.max ?? null, layer.distinctDestinations?.max ?? null);
  above("callsPerPrefix.max", upper.callsPerPrefix?.max ?? null, layer.callsPerPrefix?.max ?? null);
  // Disabling the account is the operator's to decide, not a limit a provider or customer tightens.
  if (layer.disableOnFraud && whose === "operator's")
    out.push({ param: "disableOnFraud", message: "is the operator's option" });
  return out;
}

/**
 * Every number of `layer` above a layer set over it: the operator's, and `providers`, the layers of the resellers above
 * the writer (for a provider, those further up than itself; for the customer, every one).
 */
export function looseningsUnder(operator: LimitLayer, providers: readonly LimitLayer[], layer: LimitLayer) {
  // The providers' tightest numbers as one layer: one error per rule, naming the number that binds.
  const tightestWindow = (pick: (l: LimitLayer) => WindowRule | null) =>
    providers
      .map(pick)
      .reduce<WindowRule | null>((a, b) => (a === null || (b !== null && b.max < a.max) ? b : a), null);
  const tightest: LimitLayer = {
    ...NO_LIMITS,
    maxConcurrentCalls: lowestOf(providers, (l) => l.maxConcurrentCalls),
    callsPerSecond: lowestOf(providers, (l) => l.callsPerSecond),
    dailySpendMicros: lowestOf(providers, (l) => l.dailySpendMicros),
    monthlySpendMicros: lowestOf(providers, (l) => l.monthlySpendMicros),
    distinctDestinations: tightestWindow((l) => l.distinctDestinations),
    callsPerPrefix: tightestWindow((l) => l.callsPerPrefix),
  };
  return [...loosenings(operator, layer), ...loosenings(tightest, layer, "provider's")];
}

/** An account's stored layers, parsed (NO_LIMITS for one never set). */
export interface LimitLayers {
  operator: LimitLayer;
  /** One per reseller above the account that set one, in authorize_state's order (by its account id, migration 0041). */
  providers: readonly LimitLayer[];
  customer: LimitLayer;
}

/** What the authorization enforces: every rule of every layer. */
export interface EffectiveLimits {
  maxConcurrentCalls: number | null;
  callsPerSecond: number | null;
  dailySpendMicros: bigint | null;
  monthlySpendMicros: bigint | null;
  blockedPrefixes: string[];
  /** Each layer's allow list that is set: a destination must start with a prefix of every one. */
  allowLists: string[][];
  distinctDestinations: WindowRule[];
  callsPerPrefix: WindowRule[];
  /** The operator's option: a fraud rule's crossing disables the account. */
  disableOnFraud: boolean;
}

/** The lowest number any of `layers` sets for a rule, or null when none sets it. */
function lowestOf<T extends number | bigint>(
  layers: readonly LimitLayer[],
  pick: (l: LimitLayer) => T | null,
): T | null {
  return layers.map(pick).reduce<T | null>((a, b) => (a === null ? b : b === null ? a : a < b ? a : b), null);
}

/**
 * Every rule of every layer: the lowest number of each, every list and window. The windows' order (operator,
 * providers, customer) is the order authorize_state (migration 0041) counts them in.
 */
export function effectiveLimits({ operator, providers, customer }: LimitLayers): EffectiveLimits {
  const all = [operator, ...providers, customer];
  const lowest = <T extends number | bigint>(pick: (l: LimitLayer) => T | null) => lowestOf(all, pick);
  return {
    maxConcurrentCalls: lowest((l) => l.maxConcurrentCalls),
    callsPerSecond: lowest((l) => l.callsPerSecond),
    dailySpendMicros: lowest((l) => l.dailySpendMicros),
    monthlySpendMicros: lowest((l) => l.monthlySpendMicros),
    blockedPrefixes: [...new Set(all.flatMap((l) => l.blockedPrefixes))],
    allowLists: all.flatMap((l) => (l.allowedPrefixes === null ? [] : [l.allowedPrefixes])),
    distinctDestinations: all.flatMap((l) => (l.distinctDestinations ? [l.distinctDestinations] : [])),
    callsPerPrefix: all.flatMap((l) => (l.callsPerPrefix ? [l.callsPerPrefix] : [])),
    disableOnFraud: operator.disableOnFraud,
  };
}

/** Whether any rule needs the authorizations of a sliding window (one query for all of them). */
export function needsWindow(limits: EffectiveLimits): boolean {
  return limits.callsPerSecond !== null || limits.distinctDestinations.length > 0 || limits.callsPerPrefix.length > 0;
}

export type DestinationVerdict =
  { ok: true } | { ok: false; code: "destination_blocked" | "destination_not_allowed"; limit: string; value: string };

/** The destination rules on the dialled digits (no `+`): the longest blocked prefix it starts with, or an allow list it misses. */
export function checkDestination(limits: EffectiveLimits, digits: string): DestinationVerdict {
  const blocked = limits.blockedPrefixes.filter((p) => digits.startsWith(p)).sort((a, b) => b.length - a.length)[0];
  if (blocked !== undefined)
    return { ok: false, code: "destination_blocked", limit: "blockedPrefixes", value: blocked };
  const missed = limits.allowLists.find((list) => !list.some((p) => digits.startsWith(p)));
  if (missed !== undefined)
    return { ok: false, code: "destination_not_allowed", limit: "allowedPrefixes", value: missed.join(",") };
  return { ok: true };
}
