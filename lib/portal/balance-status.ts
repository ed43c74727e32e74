/** Below this (in the group's currency) the portal warns that the balance is running low. */
export const LOW_BALANCE_MICROS = 10_000_000n;

export type BalanceStatus = "disabled" | "low" | "ok";

/** Disabled wins (calls are refused), then low; exact micros, no float comparison. */
export function balanceStatus(balanceMicros: bigint, disabled: boolean): BalanceStatus {
  if (disabled) return "disabled";
  return balanceMicros < LOW_BALANCE_MICROS ? "low" : "ok";
}
