/** Below this (in the group's currency) the portal warns that the balance is running low. */
export const LOW_BALANCE_MICROS = 10_000_000n;

export type BalanceStatus = "disabled" | "low" | "ok";

/** Disabled wins (calls are refused), then low; exact micros, no float comparison. */
export function balanceStatus(balanceMicros: bigint, disabled: boolean): BalanceStatus {
  if (disabled) return "disabled";
  return balanceMicros < LOW_BALANCE_MICROS ? "low" : "ok";
}

/**
 * Why an account takes calls or not, in words: an operator's switch, or a balance at its credit limit (a new account
 * with no opening balance and no credit limit starts there). `short` for a table cell.
 */
export function accountStatusText(
  account: { disabled: boolean; disabledByOperator: boolean },
  form: "long" | "short" = "long",
): string {
  if (account.disabledByOperator) return "Disabled by an operator";
  if (account.disabled)
    return form === "short" ? "Disabled: at credit limit" : "Disabled: the balance is at the credit limit";
  return "Enabled";
}
