import { sql, type AnyColumn, type SQL } from "drizzle-orm";
import { ApiError } from "@/lib/errors/api-error";
import { formatMicros, MONEY_BOUND_MESSAGE, MONEY_BOUND_MICROS } from "@/lib/money/micros";

// The bound of every balance (docs/contract.md §1: ±10^12 units). A movement that would take a balance past it is
// refused, where the database would otherwise have refused the sum past a bigint (a 500 once).

const BOUND = formatMicros(MONEY_BOUND_MICROS);

/**
 * SQL: `balance + amount` stays within the bound, written as a range on the balance (whose ends an amount that
 * isBoundedAmount (lib/money/micros.ts) accepts keeps inside a bigint), so nothing overflows even for a balance stored past the bound before it existed.
 */
export function keepsBalanceInBound(balance: AnyColumn | SQL, amountMicros: bigint): SQL {
  const low = (-MONEY_BOUND_MICROS - amountMicros).toString();
  const high = (MONEY_BOUND_MICROS - amountMicros).toString();
  return sql`${balance} BETWEEN ${low}::bigint AND ${high}::bigint`;
}

/** 422 naming `amount`: the amount, or the balance it would make, lies past the bound. */
export function outOfBoundError(what: "amount" | "balance"): ApiError {
  const message = what === "amount" ? MONEY_BOUND_MESSAGE : `would take the balance past -${BOUND}..${BOUND}`;
  return new ApiError(
    "invalid_request_body",
    what === "amount"
      ? `The amount ${message}.`
      : `This movement would take the balance past ${BOUND} either way, the bound of every balance.`,
    [{ param: "amount", message }],
  );
}
