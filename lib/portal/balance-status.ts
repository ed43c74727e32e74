/** Below this (in the group's currency) the portal warns that the balance is running low. */
export const LOW_BALANCE_MICROS = 10_000_000n;

export type BalanceStatus = "disabled" | "held" | "low" | "ok";

/**
 * The account's own disabling wins (the customer can act on it), then a provider above it on hold (`heldByProvider`:
 * a reseller tier disabled or without headroom refuses the subtree's calls), then low; exact micros, no float.
 */
export function balanceStatus(balanceMicros: bigint, disabled: boolean, heldByProvider = false): BalanceStatus {
  if (disabled) return "disabled";
  if (heldByProvider) return "held";
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

/** What a customer is told when a reseller above it blocks its calls: never the reseller's id or figures (§21). */
export const PROVIDER_HOLD_TEXT = "Calls are paused: your provider's account is on hold. Contact your provider.";
