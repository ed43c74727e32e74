import { eq } from "drizzle-orm";
import type { Principal } from "@/lib/auth/principal";
import { accountOf } from "@/lib/auth/reach";
import type { ChangeContext } from "@/lib/billing/change-context";
import type { Db, Executor } from "@/lib/db/client";
import { billingGroups } from "@/lib/db/schema";
import { ApiError } from "@/lib/errors/api-error";
import { microsToNumber } from "@/lib/money/micros";
import { asBodyErrors } from "./endpoint-access";
import type { Thresholds, ThresholdsBody } from "./schemas";
import { listBalanceThresholds, setBalanceThresholds, type ThresholdInfo } from "./webhooks";

// GET/PUT /v1/alert-thresholds: an account's low-balance thresholds, replaced as a whole set (how they are stored:
// each keeps its crossed state, set from the balance when the set is written).

async function currencyOf(db: Executor, billingGroupId: string): Promise<string | null> {
  const [row] = await db
    .select({ currency: billingGroups.currency })
    .from(billingGroups)
    .where(eq(billingGroups.id, billingGroupId));
  return row ? row.currency.trim() : null;
}

function toThresholds(billingGroupId: string, currency: string, list: readonly ThresholdInfo[]): Thresholds {
  return {
    billingGroupId,
    currency,
    thresholds: list.map((t) => ({ amount: microsToNumber(t.thresholdMicros), crossed: t.crossed })),
  };
}

export async function readThresholds(
  db: Executor,
  principal: Principal,
  account: string | undefined,
): Promise<Thresholds> {
  const group = accountOf(principal, account);
  if (group === null)
    throw new ApiError("invalid_parameter", "A platform caller names the account.", [
      { param: "account", message: "is required for a platform caller" },
    ]);
  const currency = await currencyOf(db, group);
  if (currency === null) throw new ApiError("not_found", `No account with id ${JSON.stringify(group.slice(0, 64))}.`);
  return toThresholds(group, currency, await listBalanceThresholds(db, group));
}

/** PUT: the whole set, audited (`alert_threshold.changed`, before and after). */
export async function replaceThresholds(
  db: Db,
  principal: Principal,
  body: ThresholdsBody,
  by: ChangeContext,
): Promise<Thresholds> {
  const group = accountOf(principal, body.billingGroupId);
  if (group === null)
    throw new ApiError("invalid_request_body", "A platform caller names the account.", [
      { param: "billingGroupId", message: "is required for a platform caller" },
    ]);
  const list = await asBodyErrors(() => setBalanceThresholds(db, group, body.thresholds, by));
  return toThresholds(group, (await currencyOf(db, group)) ?? "", list);
}
