import { z } from "zod";
import { getAccount } from "@/lib/billing/accounts";
import { lookupRate } from "@/lib/rating/lookup-rate";
import type { Rate } from "@/lib/rating/schemas";
import { ApiError } from "@/lib/errors/api-error";
import type { Principal } from "@/lib/auth/principal";
import type { Executor } from "@/lib/db/client";

export const accountRateInputSchema = z.object({
  account: z.string().min(1).max(64),
  destination: z.string().regex(/^\+?\d{1,32}$/),
});

export type AccountRateResult = { ok: true; rate: Rate } | { ok: false; code: string; detail: string };

/**
 * The rate calculator of a platform session: the sell rate of an account it may see (the same
 * lookup as GET /v1/rates, on the chosen group's card). Unseen accounts answer not_found.
 */
export async function lookupAccountRate(
  db: Executor,
  principal: Principal,
  input: unknown,
): Promise<AccountRateResult> {
  const parsed = accountRateInputSchema.safeParse(input);
  if (!parsed.success)
    return { ok: false, code: "invalid_parameter", detail: "Choose an account and enter a destination of digits." };
  try {
    const account = await getAccount(db, principal, parsed.data.account);
    const rate = await lookupRate(
      db,
      { ...principal, billingGroupId: account.id, rateCardVersion: null },
      parsed.data.destination,
    );
    return { ok: true, rate };
  } catch (e) {
    if (e instanceof ApiError) return { ok: false, code: e.code, detail: e.detail };
    throw e;
  }
}
