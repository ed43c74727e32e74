import { ApiError } from "@/lib/errors/api-error";

/**
 * The refusal of a card top-up or auto-recharge for a reseller's customer (resellerNameOf, lib/billing): it pays its
 * reseller, never the operator's payment provider (docs/contract.md "Who pays whom"): a card paid here would credit
 * the customer with money the reseller never received.
 */
export function paysItsReseller(reseller: string): ApiError {
  return new ApiError(
    "conflict",
    `This account is billed by ${reseller}, its reseller: card payments here would not reach them. Ask ${reseller} to top it up.`,
  );
}
