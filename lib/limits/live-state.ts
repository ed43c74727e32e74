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
  const { operator, customer, usage } = limits;
  const provider = limits.provider ?? operator;
  const open = parseMicros(usage.openReservations);
  return {
    concurrentCalls: {
      now: usage.concurrentCalls,
      cap: tighter(operator.maxConcurrentCalls, provider.maxConcurrentCalls, customer.maxConcurrentCalls),
    },
    today: {
      spentMicros: parseMicros(usage.settledToday) + open,
      capMicros: tighter(micros(operator.dailySpend), micros(provider.dailySpend), micros(customer.dailySpend)),
    },
    month: {
      spentMicros: parseMicros(usage.settledThisMonth) + open,
      capMicros: tighter(micros(operator.monthlySpend), micros(provider.monthlySpend), micros(customer.monthlySpend)),
    },
  };
}

/** The dashboard's card shows only for an account with a concurrent-call or a daily spend cap. */
export function hasLiveCaps(state: LiveState): boolean {
  return state.concurrentCalls.cap !== null || state.today.capMicros !== null;
}
