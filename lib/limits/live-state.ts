import { parseMicros } from "@/lib/money/micros";
import type { Limits } from "./schemas";

// What the portal shows of an account's limits now (the Limits page, the dashboard's card): each live figure against
// the cap that binds it, the tightest of the layers. Client-safe: pure, money as exact micros from the answer.

export interface LiveState {
  concurrentCalls: { now: number; cap: number | null };
  /** Settled today plus open reservations, as the authorization counts it. */
  today: { spentMicros: bigint; capMicros: bigint | null };
  month: { spentMicros: bigint; capMicros: bigint | null };
}

function tighter<T extends number | bigint>(...caps: (T | null)[]): T | null {
  return caps.reduce<T | null>((a, b) => (a === null ? b : b === null ? a : a < b ? a : b), null);
}

const micros = (amount: number | null) => (amount === null ? null : parseMicros(amount));

export function liveState(limits: Limits): LiveState {
  const { operator, providers, customer, usage } = limits;
  // Every layer binds: the operator's, each reseller's above the account, the customer's.
  const all = [operator, ...providers, customer];
  const open = parseMicros(usage.openReservations);
  return {
    concurrentCalls: { now: usage.concurrentCalls, cap: tighter(...all.map((l) => l.maxConcurrentCalls)) },
    today: {
      spentMicros: parseMicros(usage.settledToday) + open,
      capMicros: tighter(...all.map((l) => micros(l.dailySpend))),
    },
    month: {
      spentMicros: parseMicros(usage.settledThisMonth) + open,
      capMicros: tighter(...all.map((l) => micros(l.monthlySpend))),
    },
  };
}

/** The dashboard's card shows only for an account with a concurrent-call or a daily spend cap. */
export function hasLiveCaps(state: LiveState): boolean {
  return state.concurrentCalls.cap !== null || state.today.capMicros !== null;
}
