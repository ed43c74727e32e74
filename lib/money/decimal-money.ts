import { z } from "zod";
import { isBoundedAmount, MONEY_BOUND_MESSAGE, parseMicros } from "./micros";

const DECIMAL = /^-?\d{1,13}(\.\d{1,6})?$/;

/**
 * An amount in a /v1 request body: a decimal string, exact to 6 decimals (a JSON number may not be exact), as bigint
 * micro-units, at most 10^12 either way (docs/contract.md §1). `example` is what the error messages show.
 */
export function decimalMoney(example = "25.00") {
  return z
    .string({ error: `must be a decimal string such as "${example}" (not a JSON number)` })
    .regex(DECIMAL, `must be a decimal string with at most 6 decimals, such as "${example}"`)
    .transform((text) => parseMicros(text))
    .refine(isBoundedAmount, { message: MONEY_BOUND_MESSAGE });
}
