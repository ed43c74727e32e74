import { parseMicros } from "@/lib/money/micros";
import type { Limits } from "./schemas";

// What the portal shows of an account's limits now (the Limits page, the dashboard's card): each live figure against
// the cap that binds it, the tighter of the two layers. Client-safe: pure, money as exact micros from the answer.

export interface LiveState {
  concurrentCalls: { now: number; cap: number | null };
  /** Settled today plus open reservations, as the authorization counts it. */
  today: { spentMicros: bigint; capMicros: bigint | null };
  month: { spentMicros: bigint; capMicros: bigint | null };
}

function tighter<T extends number | bigint>(a: T | null, b: T | null): T | null {
  if (a === null) return b;
  if (b === null) return a;
  return a < b ? a : b;
}

const micros = (amount: number | null) => (amount === null ? null : parseMicros(amount));

export function liveState(limits: Limits): LiveState {
  const { operator, customer, usage } = limits;
  const open = parseMicros(usage.openReservations);
  return {
    concurrentCalls: {
      now: usage.concurrentCalls,
      cap: tighter(operator.maxConcurrentCalls, customer.maxConcurrentCalls),
    },
    today: {
      spentMicros: parseMicros(usage.settledToday) + open,
      capMicros: tighter(micros(operator.dailySpend), micros(customer.dailySpend)),
    },
    month: {
      spentMicros: parseMicros(usage.settledThisMonth) + open,
      capMicros: tighter(micros(operator.monthlySpend), micros(customer.monthlySpend)),
    },
  };
}

/** The dashboard's card shows only for an account with a concurrent-call or a daily spend cap. */
export function hasLiveCaps(state: LiveState): boolean {
  return state.concurrentCalls.cap !== null || state.today.capMicros !== null;
}
