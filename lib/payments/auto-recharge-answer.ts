import type { Db } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { microsToNumber } from "@/lib/money/micros";
import { readAutoRecharge } from "./auto-recharge";

/** The answer of PUT /v1/accounts/{id}/auto-recharge. */
export async function autoRechargeAnswer(db: Db, groupId: string) {
  const state = await readAutoRecharge(db, groupId);
  if (!state) throw new ApiError("not_found", `No account with id ${JSON.stringify(groupId.slice(0, 64))}.`);
  return {
    accountId: groupId,
    enabled: state.setting !== null,
    threshold: state.setting ? microsToNumber(state.setting.thresholdMicros) : null,
    amount: state.setting ? microsToNumber(state.setting.amountMicros) : null,
    currency: state.currency,
    cardSaved: state.cardSaved,
  };
}
