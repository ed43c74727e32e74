import { microsToNumber } from "@/lib/money/micros";
import type { BillingGroup } from "./groups";
import type { AccountDetail } from "./provisioning-schemas";

/** A billing group as the provisioning operations answer it (and as its audit snapshots record it). */
export function toAccountDetail(group: BillingGroup): AccountDetail {
  return {
    id: group.id,
    name: group.name,
    balance: microsToNumber(group.balanceMicros),
    currency: group.currency,
    disabled: group.disabled,
    creditLimit: microsToNumber(group.creditLimitMicros),
    accountcode: group.accountcode,
    parentId: group.parentId,
    disabledByOperator: group.disabledByOperator,
    createdAt: group.createdAt.toISOString(),
  };
}
