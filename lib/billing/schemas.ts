import { z } from "zod";

export const currencySchema = z
  .string()
  .regex(/^[A-Z]{3}$/, "currency must be a 3-letter ISO 4217 code, e.g. USD");

/** A decimal amount given by an operator ("25", "-3.5", "0.000001"): at most 6 decimals. */
export const amountTextSchema = z
  .string()
  .regex(/^-?\d+(\.\d{1,6})?$/, "amount must be a decimal number with at most 6 decimals");
